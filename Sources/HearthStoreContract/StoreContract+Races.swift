import Foundation
import HearthCore

/// Two writers on one account: versioned updates and sign-in stamps never lose a change. Each race is staged
/// with a barrier — both sides read before either writes — so it happens on every run, not by luck.
extension StoreContract {
    public static let races: [StoreCheck] = [
        StoreCheck("racing project changes all land (a server's writes and a CLI's, through modifyProject)") { store in
            _ = try await store.createProjectIfAbsent(sampleProject("p-one"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        try await store.modifyProject("p-one") { record in
                            record.serviceAccounts.append(ServiceAccountRecord(
                                name: "racer-\(index)", clientEmail: "racer-\(index)@p-one.iam.hearth", keyID: "k\(index)",
                                publicKeyPEM: "pem", createdAt: epoch))
                        }
                    }
                }
                try await group.waitForAll()
            }
            let names = Set(try await store.project(id: "p-one")?.serviceAccounts.map(\.name) ?? [])
            try expect(names == Set((0..<8).map { "racer-\($0)" }), "every change landed: \(names.sorted())")
            try expect(try await store.project(id: "p-one")?.version == 8, "one version per change")
        },
        StoreCheck("with duplicate emails allowed, one password account per email, even when two race") { store in
            var idp = sampleUser("idp", email: "dup@example.com")
            idp.passwordHash = nil
            try await store.insertUser(idp, uniqueEmail: false)
            var first = sampleUser("pw-1", email: "dup@example.com"), second = sampleUser("pw-2", email: "DUP@example.com")
            (first.passwordHash, second.passwordHash) = ("hash-1", "hash-2")
            let results = try await withThrowingTaskGroup(of: Bool.self) { group in
                for user in [first, second] {
                    group.addTask {
                        do { try await store.insertUser(user, uniqueEmail: false); return true } catch StoreError.emailExists { return false }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            try expect(results.filter { $0 }.count == 1, "exactly one password account is created: \(results)")
            var another = sampleUser("idp-2", email: "dup@example.com")
            another.passwordHash = nil
            try await store.insertUser(another, uniqueEmail: false)
            // Giving the second IdP account a password is refused: the email has its password account.
            var upgraded = try await store.user(projectID: "p-one", tenantID: nil, localID: "idp-2")!
            upgraded.passwordHash = "hash-3"
            try await expectThrows(.emailExists) {
                try await store.updateUser(upgraded, uniqueEmail: false, revokeRefreshTokens: false)
            }
            try expect(try await store.user(projectID: "p-one", tenantID: nil, localID: "idp-2")?.passwordHash == nil,
                       "nothing of the refused update is stored")
        },
        StoreCheck("a passkey's credential id is held by one account, found by it, even when two race") { store in
            for id in ["pk-1", "pk-2"] { try await store.insertUser(sampleUser(id, email: "\(id)@example.com"), uniqueEmail: true) }
            let results = try await withThrowingTaskGroup(of: Bool.self) { group in
                for id in ["pk-1", "pk-2"] {
                    group.addTask {
                        var user = try await store.user(projectID: "p-one", tenantID: nil, localID: id)!
                        user.passkeys = [PasskeyCredential(credentialID: "cred-shared", name: "Key")]
                        do { _ = try await store.updateUser(user, uniqueEmail: true, revokeRefreshTokens: false); return true }
                        catch StoreError.identityLinked { return false }
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            try expect(results.filter { $0 }.count == 1, "exactly one account holds the credential: \(results)")
            let holder = try await store.user(projectID: "p-one", tenantID: nil, providerID: PasskeyCredential.providerID,
                                              rawID: "cred-shared")
            try expect(holder?.passkeys?.first?.credentialID == "cred-shared", "the holder is found by the credential id")
            var other = try await store.user(projectID: "p-one", tenantID: nil, localID: holder?.localID == "pk-1" ? "pk-2" : "pk-1")!
            try expect(other.passkeys == nil, "the refused update wrote nothing")
            other.passkeys = [PasskeyCredential(credentialID: "cred-own", name: "Mine")]
            _ = try await store.updateUser(other, uniqueEmail: true, revokeRefreshTokens: false)
            try expect(try await store.user(projectID: "p-one", tenantID: nil, providerID: PasskeyCredential.providerID,
                                            rawID: "cred-own")?.localID == other.localID, "a credential of its own lands")
        },
        StoreCheck("an update based on a stale read is refused and writes nothing") { store in
            try await store.insertUser(sampleUser("u1", email: "a@example.com"), uniqueEmail: true)
            let read = try await store.user(projectID: "p-one", tenantID: nil, localID: "u1")!
            var first = read, second = read  // both read before either writes
            first.displayName = "first"
            second.photoURL = "https://example.com/p.png"
            let written = try await store.updateUser(first, uniqueEmail: true, revokeRefreshTokens: false)
            try expect(written.version == (read.version ?? 0) + 1, "the version moves on")
            try await expectThrows(.conflict) {
                try await store.updateUser(second, uniqueEmail: true, revokeRefreshTokens: true)
            }
            let stored = try await store.user(projectID: "p-one", tenantID: nil, localID: "u1")!
            try expect(stored.displayName == "first" && stored.photoURL == nil, "the first change stands alone")
        },
        StoreCheck("concurrent read-modify-write loops keep every field") { store in
            try await store.insertUser(sampleUser("u1", email: "a@example.com"), uniqueEmail: true)
            let barrier = Barrier(parties: 6)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<6 {
                    group.addTask {
                        var current = try await store.user(projectID: "p-one", tenantID: nil, localID: "u1")!
                        await barrier.arrive()  // everyone holds the same version now
                        while true {
                            var changed = current
                            var claims = (try? JSONSerialization.jsonObject(
                                with: Data((changed.customAttributes ?? "{}").utf8)) as? [String: Int]) ?? [:]
                            claims["w\(index)"] = index
                            changed.customAttributes = String(
                                decoding: try JSONSerialization.data(withJSONObject: claims, options: .sortedKeys),
                                as: UTF8.self)
                            do {
                                _ = try await store.updateUser(changed, uniqueEmail: true, revokeRefreshTokens: false)
                                return
                            } catch StoreError.conflict {
                                current = try await store.user(projectID: "p-one", tenantID: nil, localID: "u1")!
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            let stored = try await store.user(projectID: "p-one", tenantID: nil, localID: "u1")!
            let claims = try JSONSerialization.jsonObject(with: Data(stored.customAttributes!.utf8)) as! [String: Int]
            try expect(claims.count == 6, "all six writers' claims kept: \(claims.keys.sorted())")
            try expect(stored.version == 6, "six writes, six versions: \(stored.version ?? 0)")
        },
        StoreCheck("a sign-in stamp loses to a password change that landed while it hashed") { store in
            var user = sampleUser("u1", email: "a@example.com")
            try await store.insertUser(user, uniqueEmail: true)
            let verified = user.passwordHash!  // the sign-in read this hash and is now busy verifying it
            user = try await store.user(projectID: "p-one", tenantID: nil, localID: "u1")!
            user.passwordHash = "$fbscrypt$new"
            user.validSince += 5
            user.disabled = true
            try await store.updateUser(user, uniqueEmail: true, revokeRefreshTokens: true)
            let stamped = try await store.stampSignIn(SignInStamp(
                projectID: "p-one", tenantID: nil, localID: "u1", at: epoch + 60, signedIn: true,
                verifiedPasswordHash: verified, rehash: "$fbscrypt$rehash-of-old"))
            try expect(stamped == nil, "the stale sign-in is refused")
            let stored = try await store.user(projectID: "p-one", tenantID: nil, localID: "u1")!
            try expect(stored.passwordHash == "$fbscrypt$new" && stored.disabled && stored.validSince == user.validSince,
                       "the password change, the disable and the revocation all stand")
        },
        StoreCheck("a sign-in stamp writes only its own fields and moves the version") { store in
            try await store.insertUser(sampleUser("u1", email: "a@example.com"), uniqueEmail: true)
            let read = try await store.user(projectID: "p-one", tenantID: nil, localID: "u1")!
            var admin = read
            admin.disabled = true
            admin.customAttributes = #"{"role":"none"}"#
            try await store.updateUser(admin, uniqueEmail: true, revokeRefreshTokens: false)
            let stamped = try await store.stampSignIn(SignInStamp(
                projectID: "p-one", tenantID: nil, localID: "u1", at: epoch + 90, signedIn: true,
                verifiedPasswordHash: read.passwordHash, rehash: "$fbscrypt$upgraded"))
            try expect(stamped?.disabled == true && stamped?.customAttributes == #"{"role":"none"}"#,
                       "the concurrent admin change is kept")
            try expect(stamped?.passwordHash == "$fbscrypt$upgraded" && stamped?.lastLoginAt == epoch + 90,
                       "the stamp wrote the rehash and the sign-in time")
            try expect(try await store.user(projectID: "p-one", tenantID: nil, localID: "u1") == stamped, "as stored")
            try await expectThrows(.conflict) {  // whoever read before the stamp must read again
                try await store.updateUser(admin, uniqueEmail: true, revokeRefreshTokens: false)
            }
            let refreshed = try await store.stampSignIn(SignInStamp(
                projectID: "p-one", tenantID: nil, localID: "u1", at: epoch + 120, signedIn: false))
            try expect(refreshed?.lastRefreshAt == epoch + 120 && refreshed?.lastLoginAt == epoch + 90,
                       "a refresh stamp moves lastRefreshAt only")
            try expect(try await store.stampSignIn(SignInStamp(
                projectID: "p-one", tenantID: nil, localID: "ghost", at: epoch, signedIn: true)) == nil, "no such user")
        },
        StoreCheck("deleting an account's codes keeps its recovery codes and other accounts' codes") { store in
            var mine = code("c1")
            mine.localID = "u1"
            var recovery = code("c3")
            recovery.localID = "u1"
            recovery.type = .recoverEmail
            var other = code("c2")
            other.localID = "u2"
            for record in [mine, recovery, other] { try await store.insertActionCode(record) }
            try expect(try await store.deleteActionCodes(projectID: "p-one", tenantID: nil, localID: "u1") == 1, "one deleted")
            try expect(try await store.actionCode(projectID: "p-one", digest: "c1") == nil, "u1's code gone")
            try expect(try await store.actionCode(projectID: "p-one", digest: "c3") != nil, "u1's recovery code kept")
            try expect(try await store.actionCode(projectID: "p-one", digest: "c2") != nil, "u2's code kept")
        },
        StoreCheck("racing SMS sends to a pumped prefix admit exactly the limit, start one halt, ended by a lift") { store in
            let clock = ManualClock(epoch + 0.4375)  // fractional milliseconds, as real clocks give
            let watch = SMSPumpingWatch(store: store, limiter: RateLimiter(store: store, clock: clock), clock: clock,
                                        rules: .init(distinctNumbersPerPrefix: .init(limit: 4, window: 600), halt: 3600))
            /// Each racer's outcome: admitted, refused by a halt it started, or refused by one already started.
            enum Outcome: Sendable { case admitted, started(SMSPumpingWatch.Halt), refused }
            func race(_ numbers: [String]) async throws -> [Outcome] {
                let barrier = Barrier(parties: numbers.count)
                return try await withThrowingTaskGroup(of: Outcome.self) { group in
                    for number in numbers {
                        group.addTask {
                            await barrier.arrive()
                            do {
                                _ = try await watch.admit(number, projectID: "p-one")
                                return .admitted
                            } catch let halted as SMSPumpingWatch.Halted {
                                return halted.started.map(Outcome.started) ?? .refused
                            }
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            let first = try await race((0..<12).map { "+16505550\(100 + $0)" })
            let admitted = first.filter { if case .admitted = $0 { true } else { false } }.count
            let started = first.compactMap { if case .started(let halt) = $0 { halt } else { nil } }
            try expect(admitted == 4, "12 racing numbers, a limit of 4: \(admitted) admitted")
            try expect(started.count == 1 && started.first?.prefix == "+1650555", "one halt, one audit: \(started)")
            try expect(try await watch.halt(covering: "+16505559999", projectID: "p-one") != nil, "the whole prefix halts")
            try expect(try await watch.halt(covering: "+16505560000", projectID: "p-one") == nil, "its neighbour does not")
            try expect(try await watch.halt(covering: "+16505550100", projectID: "p-two") == nil, "nor another project")
            try expect(try await watch.lift(prefix: "+1650555", projectID: "p-one"), "lifted")
            try expect(try await watch.halt(covering: "+16505550100", projectID: "p-one") == nil, "and gone")
            try expect(try await !watch.lift(prefix: "+1650555", projectID: "p-one"), "a second lift finds none")
            // One number asking many times is one number; a released admission gives its place back.
            let repeated = try await race(Array(repeating: "+14155550100", count: 10))
            try expect(repeated.allSatisfy { if case .admitted = $0 { true } else { false } }, "one number: \(repeated)")
            let held = try await watch.admit("+14155550101", projectID: "p-one")
            try await RateLimiter(store: store, clock: clock).release(held)
            for index in 1..<4 { _ = try await watch.admit("+1415555010\(index + 1)", projectID: "p-one") }
            try expect(try await watch.halt(covering: "+14155550100", projectID: "p-one") == nil, "4 numbers counted, not 5")
            let over = try await race(["+14155550199"])
            try expect(over.count == 1 && { if case .started = over[0] { true } else { false } }(), "the fifth halts: \(over)")
            // A halt that ran out (its row not yet purged) does not stop the next one.
            clock.advance(by: 3601)
            try expect(try await watch.halt(covering: "+14155550100", projectID: "p-one") == nil, "the halt ended")
            let again = try await race((0..<5).map { "+141555502\($0)0" })
            try expect(again.filter { if case .started = $0 { true } else { false } }.count == 1, "a new halt over the old row: \(again)")
        },
    ]
}

/// Holds every party until the last one arrives: racing tests start their racers together.
public actor Barrier {
    private let parties: Int
    private var arrived = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    public init(parties: Int) { self.parties = parties }

    public func arrive() async {
        arrived += 1
        if arrived >= parties {
            waiting.forEach { $0.resume() }
            waiting.removeAll()
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }
}
