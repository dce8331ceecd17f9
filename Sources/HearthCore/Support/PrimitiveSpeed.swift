import Dispatch
import Foundation

/// Measures how many of the two expensive primitives this machine does per second on all its cores: the ceilings
/// that sign-in (one Firebase-scrypt hash) and token refresh (one RS256 signature) cannot exceed.
///
/// ```swift
/// let rates = try await PrimitiveSpeed.measure(seconds: 3)
/// print(rates.scryptPerSecond, rates.rs256SignsPerSecond)
/// ```
public enum PrimitiveSpeed {
    public struct Rates: Sendable {
        public var threads: Int
        public var scryptPerSecond: Double
        public var rs256SignsPerSecond: Double
        public var rs256VerifiesPerSecond: Double
    }

    public static func measure(seconds: Double, threads: Int = ProcessInfo.processInfo.activeProcessorCount,
                               parameters: FirebaseScryptParameters = .generate()) async throws -> Rates {
        let key = try SigningKey(try await SigningKey.generate(now: Date()))
        let payload = Data(String(repeating: "x", count: 600).utf8)
        let signature = try key.sign(payload)
        let salt = Data(SecureRandom.bytes(16))
        let scrypt = rate(seconds: seconds, threads: threads) {
            _ = try? FirebaseScrypt.hash(password: "benchmark-password", salt: salt, parameters: parameters)
        }
        let sign = rate(seconds: seconds, threads: threads) { _ = try? key.sign(payload) }
        let verify = rate(seconds: seconds, threads: threads) { _ = key.isValidSignature(signature, for: payload) }
        return Rates(threads: threads, scryptPerSecond: scrypt, rs256SignsPerSecond: sign, rs256VerifiesPerSecond: verify)
    }

    /// Runs `work` on `threads` threads for `seconds` and returns completed operations per second.
    static func rate(seconds: Double, threads: Int, _ work: @escaping @Sendable () -> Void) -> Double {
        let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: threads)
        defer { counts.deallocate() }
        counts.initialize(repeating: 0)
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start + UInt64(seconds * 1e9)
        nonisolated(unsafe) let shared = counts
        DispatchQueue.concurrentPerform(iterations: threads) { index in
            var done = 0
            while DispatchTime.now().uptimeNanoseconds < deadline {
                work()
                done += 1
            }
            shared[index] = done
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Double(counts.reduce(0, +)) / elapsed
    }
}
