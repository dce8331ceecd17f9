import Benchmark
import Foundation
import HearthCore
import HearthWire

/// The costs that bound Hearth's throughput: one Firebase-scrypt hash per sign-in, one RS256 signature per token
/// refresh, one RS256 verification per `accounts:lookup`; and what a lookup pays besides: decoding the stored record
/// and writing the reply, each beside the Foundation way it replaced.
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

    // A stored account as a lookup reads it: a password, a federated identity, a second factor, custom claims.
    var stored = user
    stored.displayName = "Ada Lovelace"
    stored.photoURL = "https://example.com/ada.png"
    stored.customAttributes = #"{"role":"admin"}"#
    stored.lastLoginAt = now
    stored.providers = [ProviderUserInfo(providerID: "google.com", rawID: "1234567890", email: "bench@example.com")]
    let json = try! RecordCoding.encode(stored)
    Benchmark("user record decode (JSONDecoder)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try RecordCoding.decode(UserRecord.self, from: json)) }
    }
    let decoded = DecodedRecords<UserRecord>(capacity: 1024)
    let codec = RecordCodec()
    Benchmark("user record decode (kept: same text read again)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try codec.decode(UserRecord.self, from: json, kept: decoded)) }
    }

    let reply = try! JSONDecoder().decode(LookupResponse.self, from: JSONEncoder().encode(LookupResponse(users: [{
        var info = UserInfo(localId: stored.localID)
        (info.email, info.emailVerified, info.displayName, info.photoUrl) = (stored.email, false, stored.displayName, stored.photoURL)
        (info.passwordHash, info.passwordUpdatedAt, info.validSince) = (UserInfo.redactedPasswordHash, 1.7e12, "1700000000")
        (info.createdAt, info.lastLoginAt, info.customAttributes) = ("1700000000000", "1700000000456", stored.customAttributes)
        info.providerUserInfo = [
            ProviderUserInfoWire(providerId: "password", rawId: "bench@example.com", federatedId: "bench@example.com",
                                 email: "bench@example.com", displayName: nil, photoUrl: nil, phoneNumber: nil, screenName: nil),
            ProviderUserInfoWire(providerId: "google.com", rawId: "1234567890", federatedId: "1234567890",
                                 email: "bench@example.com", displayName: nil, photoUrl: nil, phoneNumber: nil, screenName: nil),
        ]
        return info
    }()])))
    Benchmark("lookup reply (JSONEncoder, sorted keys)") { benchmark in
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for _ in benchmark.scaledIterations { blackHole(try encoder.encode(reply)) }
    }
    Benchmark("lookup reply (WireJSONEncoder)") { benchmark in
        for _ in benchmark.scaledIterations { blackHole(try WireJSONEncoder.encode(reply)) }
    }

    Benchmark("base64url decode of an ID token payload") { benchmark in
        let payload = String(token.split(separator: ".")[1])
        for _ in benchmark.scaledIterations { blackHole(Base64URL.decode(payload)) }
    }
}
