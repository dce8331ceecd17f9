import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP connection written byte by byte, to play a slow or silent client.
public final class RawConnection: @unchecked Sendable {
    public let fd: Int32

    public init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    deinit { close(fd) }

    public func send(_ text: String) {
        _ = text.withCString { Glibc.send(fd, $0, strlen($0), 0) }
    }

    /// What arrives within 5 seconds. Blocking reads run on a thread of their own, never on Swift's cooperative
    /// pool, which the server under test shares.
    public func read() async -> String {
        await offPool { self.readBlocking() }
    }

    public func closedWithin(seconds: Int) async -> Bool {
        await offPool { self.closedWithinBlocking(seconds: seconds) }
    }

    private func offPool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: work()) }
        }
    }

    private func readBlocking() -> String {
        var timeout = timeval(tv_sec: 60, tv_usec: 0)  // a give-up, not a speed bound
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
    }

    /// Whether the server closes the connection (a read returns 0 or fails) within `seconds`.
    private func closedWithinBlocking(seconds: Int) -> Bool {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count == 0 { return true }  // closed
            if count < 0 { return errno == ECONNRESET }  // timed out (EAGAIN) means still open
        }
    }
}
