import Foundation

extension NSLock {
    /// Runs `body` holding the lock. Our own, because Foundation's `withLock` is newer on Apple platforms than the
    /// systems HearthAuth supports (iOS 15, macOS 10.15 in FirebaseAuth 12's list).
    func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}
