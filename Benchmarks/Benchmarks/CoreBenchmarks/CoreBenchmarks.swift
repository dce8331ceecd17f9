import Benchmark
import Foundation
import HearthCore

/// The costs that bound Hearth's throughput: one Firebase-scrypt hash per sign-in, one RS256 signature per token
/// refresh, one RS256 verification per `accounts:lookup`.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.wallClock, .throughput], maxDuration: .seconds(3))

    let parameters = FirebaseScryptParameters.generate()
    let salt = Data(SecureRandom.bytes(16))
    Benchmark("Firebase scrypt hash (N=2^14, r=8)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try FirebaseScrypt.hash(password: "benchmark-password", salt: salt, parameters: parameters))
        }
    }

    let semaphore = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var ring: KeyRing?
    Task {
        ring = try KeyRing([try await SigningKey.generate(now: Date())])
        semaphore.signal()
    }
    semaphore.wait()
    let keys = ring!
    let issuer = IDTokenIssuer(cache: VerifiedTokenCache(capacity: 0))  // measure real verifications, not cache hits
    let now = Date()
    let user = UserRecord(projectID: "bench-project", localID: SecureRandom.localID(), email: "bench@example.com",
                          passwordHash: "x", validSince: 0, createdAt: now)
    let session = SignInSession(signInProvider: "password", authTime: now)
    let token = try! issuer.mint(for: user, session: session, projectID: "bench-project", keys: keys, now: now)

    Benchmark("ID token mint (RS256 sign)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try issuer.mint(for: user, session: session, projectID: "bench-project", keys: keys, now: now))
        }
    }

    Benchmark("ID token verify (RS256 verify + claims)") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try issuer.verify(token, projectID: "bench-project", keys: keys, now: now))
        }
    }

    Benchmark("base64url decode of an ID token payload") { benchmark in
        let payload = String(token.split(separator: ".")[1])
        for _ in benchmark.scaledIterations { blackHole(Base64URL.decode(payload)) }
    }
}
