import ArgumentParser
import Foundation
import HearthCore

/// `hearth keys list|rotate|retire|revoke`: the project's token-signing keys, rotated without downtime, or revoked
/// at once when one leaked.
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "List, rotate, retire and revoke the keys that sign ID tokens and session cookies.",
        discussion: """
            Rotation without downtime:
              hearth keys rotate          # published now, signs in an hour
              hearth keys list            # … once it signs:
              hearth keys retire OLD_KID  # stops signing, stays published a while
            Every running instance reads the keys from the store (within 5 s) and switches at the same instant. \
            A key that leaked (its private half seen by anyone): revoke it instead. It is unpublished at once, every \
            token it signed stops verifying, and a new key signs from now; users keep their sessions (their refresh \
            tokens get new ID tokens), but verifiers that cached the JWKS refuse the new key's tokens until they refresh.
              hearth keys revoke LEAKED_KID
            """,
        subcommands: [List.self, Rotate.self, Retire.self, Revoke.self])

    /// What a key is doing at `now`, in words.
    static func state(of key: SigningKeyRecord, signing: String, now: Date) -> String {
        let format = ISO8601DateFormatter()
        if let retired = key.retiredAt {
            let until = retired + KeyRing.retention
            return now < until ? "retired, published until \(format.string(from: until))" : "retired, no longer published"
        }
        if key.kid == signing { return "signing" }
        if let starts = key.activatesAt, starts > now { return "published, signs from \(format.string(from: starts))" }
        return "published (verifies older tokens)"
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the keys and what each is doing.")
        @Flag(help: "Print a JSON array instead of a table.") var json = false
        @OptionGroup var data: DataOptions

        func run() async throws {
            try await ServiceAccounts.changing(data) { record in
                let now = Date()
                let signing = try KeyRing(record.signingKeys, now: now).active.kid
                let format = ISO8601DateFormatter()
                var table = Table(columns: [("kid", "KEY ID"), ("created", "CREATED"), ("state", "STATE")])
                for key in record.signingKeys {
                    table.append([key.kid, format.string(from: key.createdAt), Keys.state(of: key, signing: signing, now: now)])
                }
                table.print(json: json, whenEmpty: "no signing keys")
            }
        }
    }

    struct Rotate: AsyncParsableCommand, AuditedCommand {
        var subject: String? { nil }
        static let configuration = CommandConfiguration(
            abstract: "Add a new signing key: published at once, signing after --activate-in seconds.")
        @Option(name: .customLong("activate-in"),
                help: "Seconds until it signs (default 3600: the JWKS's max-age, so every verifier has it first).")
        var activateIn: Int = 3600
        @OptionGroup var data: DataOptions

        func run() async throws {
            guard activateIn >= 0 else { throw ValidationError("--activate-in must be 0 or more seconds") }
            let now = Date()
            var key = try await SigningKey.generate(now: now)
            key.activatesAt = now + TimeInterval(activateIn)
            try await ServiceAccounts.changing(data) { record in
                record.signingKeys.append(key)
            }
            print("added \(key.kid): published now, signs from \(ISO8601DateFormatter().string(from: key.activatesAt!))")
            if activateIn < 3600 {
                print("note: verifiers cache the JWKS for up to an hour; until they refresh, they may refuse tokens it signs")
            }
        }
    }

    struct Retire: AsyncParsableCommand, AuditedCommand {
        var subject: String? { kid }
        static let configuration = CommandConfiguration(
            abstract: "Stop a key signing; it stays published until every token it signed has expired (14 days).")
        @Argument(help: "The key id (kid), from `hearth keys list`.") var kid: String
        @OptionGroup var data: DataOptions

        func run() async throws {
            let now = Date()
            try await ServiceAccounts.changing(data) { record in
                guard let index = record.signingKeys.firstIndex(where: { $0.kid == kid }) else {
                    throw CommandFailure("no key \(kid); `hearth keys list` shows them")
                }
                guard record.signingKeys[index].retiredAt == nil else { throw CommandFailure("\(kid) is already retired") }
                let others = record.signingKeys.indices.filter { $0 != index && record.signingKeys[$0].retiredAt == nil }
                guard others.contains(where: { record.signingKeys[$0].activatesAt.map { $0 <= now } ?? true }) else {
                    throw CommandFailure("\(kid) is the only key that can sign now: `hearth keys rotate`, and retire it once the new key signs")
                }
                record.signingKeys[index].retiredAt = now
            }
            print("\(kid) retired: it no longer signs, and verifies the tokens it signed until they expire")
        }
    }

    struct Revoke: AsyncParsableCommand, AuditedCommand {
        var subject: String? { kid }
        static let configuration = CommandConfiguration(
            abstract: "Unpublish a leaked key now: its tokens stop verifying; a new key signs if it was signing.")
        @Argument(help: "The key id (kid), from `hearth keys list`.") var kid: String
        @OptionGroup var data: DataOptions

        func run() async throws {
            let now = Date()
            let replacement = try await SigningKey.generate(now: now)
            var replaced = false
            try await ServiceAccounts.changing(data) { record in
                guard let index = record.signingKeys.firstIndex(where: { $0.kid == kid }) else {
                    throw CommandFailure("no key \(kid); `hearth keys list` shows them")
                }
                record.signingKeys.remove(at: index)
                // Whatever is left must be able to sign now: if the revoked key was the signer, a new one starts.
                replaced = !record.signingKeys.contains { $0.retiredAt == nil && ($0.activatesAt.map { $0 <= now } ?? true) }
                if replaced { record.signingKeys.append(replacement) }
            }
            print("\(kid) revoked: unpublished, and no token it signed verifies (every instance within 5 s)")
            if replaced { print("\(replacement.kid) signs from now; verifiers that cached the JWKS fetch it when they meet its kid") }
        }
    }
}
