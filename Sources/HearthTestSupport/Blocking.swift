import Foundation

/// Runs blocking work (a pipe read, a socket, `waitUntilExit`) on a thread of its own, never on Swift concurrency's
/// cooperative pool: on a 2-core machine two blocked pool threads would starve every server the tests run.
///
/// ```swift
/// let data = try await blocking { pipe.fileHandleForReading.readDataToEndOfFile() }
/// ```
public func blocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
        }
        thread.start()
    }
}
