import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The C library's `socket` and `close`, named through their module (the class has members with those names).
private func openSocket() -> Int32 {
    #if canImport(Glibc)
    Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
    Darwin.socket(AF_INET, SOCK_STREAM, 0)
    #endif
}

/// Repeats a system call that a signal interrupted. An app that starts child processes gets SIGCHLD, and `poll`,
/// `accept` and `read` on sockets then fail with EINTR (poll is never restarted); that is not the user giving up.
/// The app's own handlers may leave `errno` changed (seen with Foundation's `Process` under load: the listener
/// stopped and the browser's visit was refused), so a failure is also retried while `fd` is still open, a bounded
/// number of times.
private func uninterrupted<Result: BinaryInteger>(on fd: Int32, _ call: () -> Result) -> Result {
    var retries = 0
    while true {
        let result = call()
        if result >= 0 { return result }
        if errno == EINTR { continue }
        retries += 1
        guard retries < 100, fcntl(fd, F_GETFD) != -1 else { return result }
    }
}

private func closeDescriptor(_ fd: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(fd)
    #else
    _ = Darwin.close(fd)
    #endif
}

/// A one-shot HTTP listener on 127.0.0.1 with a port the system picks: where the browser comes back at the end of a
/// web sign-in (RFC 8252 §7.3). It answers the first request for its callback path with a page telling the user to
/// return to the app, and hands the request's URL over.
final class LoopbackReceiver: @unchecked Sendable {
    let port: Int
    /// The listening descriptor (tests check that its number is left alone once released).
    let socket: Int32
    private let lock = NSLock()
    private var closed = false
    /// The descriptor is closed by whoever holds it last (the listening thread, or deinit if it never ran), never
    /// while the thread may still poll it: a number closed early could be reused by another socket of the process.
    private var released = false
    /// The thread that waits for the browser, once it runs, and whether it still does (tests interrupt it with a
    /// signal, and must never signal a thread that has ended: its handle may be freed).
    private(set) var listeningThread: pthread_t? {
        get { lock.locked { thread } }
        set { lock.locked { thread = newValue } }
    }
    private var thread: pthread_t?

    /// Runs `body` with the listening thread while it is still waiting, under the lock its exit takes: `false`
    /// once it has ended (or before it started).
    func withListeningThread(_ body: (pthread_t) -> Void) -> Bool {
        lock.locked {
            guard let thread, !threadEnded else { return false }
            body(thread)
            return true
        }
    }
    private var threadEnded = false

    init() throws {
        let fd = openSocket()
        guard fd >= 0 else { throw AuthErrorFactory.make(.webInternalError, detail: "Cannot open a loopback socket.") }
        var address = sockaddr_in()
        #if !canImport(Glibc)
        address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
        #endif
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 4) == 0 else {
            closeDescriptor(fd)
            throw AuthErrorFactory.make(.webInternalError, detail: "Cannot listen on 127.0.0.1.")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        socket = fd
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// Stops listening: the thread notices within a quarter of a second (at once on Linux) and lets go. Once the
    /// thread has let go the number may belong to another socket of the app, so it is only shut down before that
    /// (under the lock `release` closes it under).
    func close() {
        lock.locked {
            closed = true
            if !released { _ = shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    deinit {
        if !released { closeDescriptor(socket) }
    }

    private func release() {
        lock.locked {
            released = true
            threadEnded = true
            closeDescriptor(socket)
        }
    }

    /// The path and query of the callback request, within `timeout` seconds (the user may take a while).
    func waitForCallback(timeout: TimeInterval = 300) async throws -> String {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
            startWaiting(timeout: timeout) { continuation.resume(with: $0) }
        }
    }

    /// Waits on a thread of its own (which inherits the caller's signal mask) and calls `done` once.
    func startWaiting(timeout: TimeInterval, done: @escaping @Sendable (Result<String, any Error>) -> Void) {
        Thread.detachNewThread { [self] in
            listeningThread = pthread_self()
            let deadline = Date().addingTimeInterval(timeout)
            var failure: String?
            while Date() < deadline {
                var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                let ready = uninterrupted(on: socket) { poll(&descriptor, 1, 250) }
                if ready < 0 { failure = "Waiting for the browser failed: \(String(cString: strerror(errno)))." }
                if ready < 0 || lock.locked({ closed }) { break }
                guard ready > 0 else { continue }
                let client = uninterrupted(on: socket) { accept(socket, nil, nil) }
                guard client >= 0 else { continue }
                let target = Self.readRequestTarget(client)
                let isCallback = target?.hasPrefix("/__/hearth/callback") == true
                Self.respond(client, found: isCallback)
                closeDescriptor(client)
                if isCallback, let target {
                    release()
                    done(.success("http://127.0.0.1" + target))
                    return
                }
            }
            release()
            done(.failure(AuthErrorFactory.make(
                .webContextCancelled,
                detail: failure ?? "The browser did not come back to the app within \(Int(timeout)) seconds.")))
        }
    }

    private static func readRequestTarget(_ client: Int32) -> String? {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while data.count < 65536 {
            var descriptor = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            guard uninterrupted(on: client, { poll(&descriptor, 1, 5000) }) > 0 else { break }
            let count = uninterrupted(on: client) { read(client, &buffer, buffer.count) }
            guard count > 0 else { break }
            data += buffer[0..<count]
            if data.count >= 4, String(decoding: data, as: UTF8.self).contains("\r\n\r\n") { break }
        }
        let line = String(decoding: data, as: UTF8.self).split(separator: "\r\n", maxSplits: 1).first ?? ""
        let parts = line.split(separator: " ")
        guard parts.count >= 2, parts[0] == "GET" else { return nil }
        return String(parts[1])
    }

    private static func respond(_ client: Int32, found: Bool) {
        let body = found
            ? "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Signed in</title></head><body><h1>Done</h1><p>You can close this window and return to the app.</p></body></html>"
            : "Not found"
        let head = "HTTP/1.1 \(found ? "200 OK" : "404 Not Found")\r\nContent-Type: text/html; charset=utf-8\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n"
        let bytes = Array((head + body).utf8)
        // A browser that hung up must not cost the app a SIGPIPE (whose default action ends the process).
        #if canImport(Glibc)
        let flags = Int32(MSG_NOSIGNAL)
        #else
        var one: Int32 = 1
        setsockopt(client, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        let flags: Int32 = 0
        #endif
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeBytes { all in uninterrupted(on: client) { send(client, all.baseAddress! + offset, all.count - offset, flags) } }
            guard written > 0 else { return }
            offset += written
        }
    }
}
