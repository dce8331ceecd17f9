import Foundation
import HearthCore
import HearthPostgresTestSupport
import HearthSQLite
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HearthTestSupport
import Testing

/// The commands other than `serve` open an existing store and project and name them; run from the wrong folder or
/// for a project the store lacks, they stop and say where they looked instead of creating a new store with new keys.
@Suite(.enabled(if: hearthBinary != nil, "needs the built hearth binary"))
struct CLIStoreTests {
    static func hearth(_ arguments: [String], in folder: URL) async throws -> (status: Int32, output: String) {
        try await runHearth(arguments, in: folder, environment: ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") })
    }

    /// The QR code `hearth` drew in half blocks (`█` light over light, ` ` dark over dark), decoded by zbarimg from a
    /// bitmap of it; nil (and a note) where zbarimg is not installed.
    static func decodeQR(in output: String) async throws -> String? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/zbarimg") else {
            print("skipped the QR decoding: zbarimg is missing (apt-get install zbar-tools; scripts/test installs it)")
            return nil
        }
        let art = output.split(separator: "\n").filter { !$0.isEmpty && $0.allSatisfy { "█▀▄ ".contains($0) } }
        var rows: [[Bool]] = []  // true: dark
        for line in art {
            rows.append(line.map { $0 == "▄" || $0 == " " })
            rows.append(line.map { $0 == "▀" || $0 == " " })
        }
        let (scale, pad) = (6, 8)
        let width = ((rows.first?.count ?? 0) + 2 * pad) * scale, height = (rows.count + 2 * pad) * scale
        var pbm = "P1\n\(width) \(height)\n"
        for y in 0..<height {
            let row = y / scale - pad
            pbm += (0..<width).map { x -> String in
                let column = x / scale - pad
                return rows.indices.contains(row) && rows[row].indices.contains(column) && rows[row][column] ? "1" : "0"
            }.joined(separator: " ") + "\n"
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-qr-\(UUID().uuidString).pbm")
        try pbm.write(to: file, atomically: true, encoding: .ascii)
        defer { try? FileManager.default.removeItem(at: file) }
        // Standard output only: zbarimg warns on standard error where D-Bus is missing.
        let decoded = try await runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", "/usr/bin/zbarimg -q --raw \"$0\" 2>/dev/null", file.path])
        return decoded.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `hearth keys list --json`: what scripts read.
    static func keys(in folder: URL) async throws -> [[String: String]] {
        let listed = try await hearth(["keys", "list", "--json"], in: folder)
        let json = listed.output.split(separator: "\n").drop { !$0.hasPrefix("[") }.joined(separator: "\n")
        return try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: String]], "\(listed.output)")
    }

    /// Help reads as written: prose is wrapped once (a line of a paragraph, not its last, is not cut short by a
    /// second wrapping of lines already broken by hand), and `serve --help` shows only the options serve uses.
    @Test func helpIsWrappedOnceAndServeShowsItsOwnOptions() async throws {
        let folder = FileManager.default.temporaryDirectory
        let commands = [[], ["serve"], ["project", "show"], ["users"], ["users", "create"], ["keys"], ["backup"],
                        ["store", "encrypt"], ["console-admins", "create"], ["console-admins", "reset"], ["auth:import"],
                        ["auth:export"], ["service-accounts", "create"], ["admin-token"], ["speed"]]
        for command in commands {
            let help = try await Self.hearth(command + ["--help"], in: folder)
            #expect(help.status == 0, "\(command): \(help.output)")
            let lines = help.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let prose = { (line: String) in !line.isEmpty && !line.hasPrefix(" ") && !line.hasSuffix(":") && !line.hasPrefix("USAGE") }
            for (line, next) in zip(lines, lines.dropFirst()) where prose(line) && prose(next) {
                #expect(line.count >= 50, "\(command): a paragraph wrapped twice at \"\(line)\"")
            }
        }
        let serve = try await Self.hearth(["serve", "--help"], in: folder).output
        #expect(!serve.contains("--tenant") && !serve.contains("--create-project"), "\(serve)")
    }

    /// Changes made from the command line are in the audit log with a `cli:` actor, the command's words and its
    /// subject, never its options (a password flag stays out); reads and dry runs write nothing.
    @Test func commandLineChangesAreAudited() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-cli-audit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for command in [["users", "create", "--email", "ada@example.com", "--password", "secret-on-the-command-line", "--create-project"],
                        ["users", "list"], ["users", "disable", "ada@example.com"], ["keys", "rotate"], ["keys", "list"],
                        ["service-accounts", "create", "backend-api"]] {
            let ran = try await Self.hearth(command, in: folder)
            #expect(ran.status == 0, "\(command): \(ran.output)")
        }
        let store = try await SQLiteStore.open(path: folder.appendingPathComponent("hearth-data/hearth.sqlite").path)
        let events = try await store.auditEvents(projectID: "hearth-local", AuditQuery(kinds: ["admin-call"]))
        try await store.close()
        let commands = events.reversed().map { $0.details["command"] ?? "" }
        #expect(commands == ["hearth users create", "hearth users disable", "hearth keys rotate", "hearth service-accounts create"],
                "\(commands)")
        #expect(events.allSatisfy { $0.details["actor"]?.hasPrefix("cli:") == true && $0.outcome == .success })
        #expect(events.first { $0.details["command"] == "hearth users disable" }?.details["subject"] == "ada@example.com")
        #expect(!events.contains { $0.details.values.contains { $0.contains("secret-on-the-command-line") } })
    }

    /// A mistyped command gets the one meant, at any depth, with the usage exit status.
    @Test func mistypedCommandsAreNamed() async throws {
        let folder = FileManager.default.temporaryDirectory
        let top = try await Self.hearth(["servr"], in: folder)
        #expect(top.status == 64 && top.output.contains("'servr' is not a hearth command (did you mean 'serve'?)"), "\(top.output)")
        let nested = try await Self.hearth(["users", "lst"], in: folder)
        #expect(nested.status == 64 && nested.output.contains("(did you mean 'list'?)"), "\(nested.output)")
        let far = try await Self.hearth(["zzzzzzzz"], in: folder)
        #expect(far.status == 64 && !far.output.contains("did you mean") && far.output.contains("Commands: serve, project"), "\(far.output)")
    }

    @Test func commandsNameTheirStoreAndCreateNothingUnasked() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let exists = { (name: String) in FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path) }

        let stray = try await Self.hearth(["service-accounts", "create", "backend-api"], in: folder)
        #expect(stray.status != 0 && stray.output.contains("no Hearth store at") && stray.output.contains("--create-project"),
                "\(stray.output)")
        #expect(!exists("hearth-data") && !exists("backend-api.json"), "nothing was created")

        let created = try await Self.hearth(["service-accounts", "create", "backend-api", "--create-project"], in: folder)
        #expect(created.status == 0 && created.output.contains("store: SQLite file hearth-data/hearth.sqlite; project: hearth-local"),
                "\(created.output)")
        // The key lands beside the data, owner-only, not in the folder the command ran from.
        #expect(!exists("backend-api.json") && exists("hearth-data/service-accounts/backend-api.json"), "\(created.output)")
        let keyPath = folder.appendingPathComponent("hearth-data/service-accounts").path
        let folderMode = try FileManager.default.attributesOfItem(atPath: keyPath)[.posixPermissions] as? Int
        let fileMode = try FileManager.default.attributesOfItem(atPath: keyPath + "/backend-api.json")[.posixPermissions] as? Int
        #expect(folderMode == 0o700 && fileMode == 0o600)
        #expect(!created.output.contains("warning:"), "not in a git work tree: \(created.output)")

        let listed = try await Self.hearth(["service-accounts", "list"], in: folder)
        #expect(listed.status == 0 && listed.output.contains("backend-api@hearth-local"), "\(listed.output)")
        let otherProject = try await Self.hearth(["auth:export", "users.json", "--project-id", "other-project"], in: folder)
        #expect(otherProject.status != 0 && otherProject.output.contains("project other-project is not in the store"),
                "\(otherProject.output)")
        #expect(!exists("users.json"))
    }

    /// `hearth project show` gives back what the banner printed, as lines or JSON, with the public URL when one is set.
    @Test func projectShowNamesWhatClientsNeed() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-show-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let none = try await Self.hearth(["project", "show"], in: folder)
        #expect(none.status != 0 && none.output.contains("no Hearth store at"), "\(none.output)")
        #expect(try await Self.hearth(["service-accounts", "create", "backend-api", "--create-project"], in: folder).status == 0)

        let shown = try await Self.hearth(["project", "show", "--json"], in: folder)
        let json = shown.output.split(separator: "\n").drop { !$0.hasPrefix("{") }.joined(separator: "\n")
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: String], "\(shown.output)")
        #expect(fields["projectId"] == "hearth-local" && fields["mode"] == "production")
        #expect(fields["baseURL"] == "http://127.0.0.1:9099" && fields["consoleURL"] == "http://127.0.0.1:9099/console")
        #expect(fields["jwksURL"] == "http://127.0.0.1:9099/.well-known/jwks.json")
        let apiKey = try #require(fields["apiKey"])
        #expect(apiKey.hasPrefix("AIza") && apiKey.count == 39, "\(apiKey)")

        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") }
        environment["HEARTH_PUBLIC_URL"] = "https://auth.example.com/"
        let lines = try await runHearth(["project", "show"], in: folder, environment: environment)
        #expect(lines.status == 0 && lines.output.contains("API key:     \(apiKey)"), "\(lines.output)")
        #expect(lines.output.contains("console:     https://auth.example.com/console"), "\(lines.output)")
        let key = try await runHearth(["project", "show", "--field", "apiKey"], in: folder, environment: environment)
        #expect(key.status == 0 && key.output.hasSuffix(apiKey + "\n"), "one value, for scripts: \(key.output)")
        let unknown = try await runHearth(["project", "show", "--field", "secret"], in: folder, environment: environment)
        #expect(unknown.status != 0 && unknown.output.contains("unknown field secret"), "\(unknown.output)")
    }

    /// A key about to land in a git work tree that does not ignore it is warned about; an ignored place is not.
    @Test func keyFilesInAGitWorkTreeAreWarnedAbout() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-git-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        guard (try? await runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["git", "init", "-q", folder.path]))?.status == 0 else {
            print("skipped: git is not installed"); return
        }
        let loose = try await Self.hearth(["service-accounts", "create", "backend-api", "--create-project", "--out", "key.json"], in: folder)
        #expect(loose.status == 0 && loose.output.contains("warning:") && loose.output.contains("git work tree"), "\(loose.output)")
        try "hearth-data/\n".write(to: folder.appendingPathComponent(".gitignore"), atomically: true, encoding: .utf8)
        let ignored = try await Self.hearth(["service-accounts", "create", "other-api"], in: folder)
        #expect(ignored.status == 0 && !ignored.output.contains("warning:"), "\(ignored.output)")
    }

    /// `auth:import` can be run again after an interruption, and tried first with `--dry-run`; its summary and exit
    /// status say what happened.
    @Test func importsCanBeRunAgainAndTriedDry() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let users = #"{"users": [{"localId": "u1", "email": "u1@example.com"}, {"localId": "u2", "email": "u2@example.com"}]}"#
        try Data(users.utf8).write(to: folder.appendingPathComponent("users.json"))

        let dry = try await Self.hearth(["auth:import", "users.json", "--dry-run", "--create-project"], in: folder)
        #expect(dry.status == 0 && dry.output.contains("dry run, nothing written: 2 users would be imported"), "\(dry.output)")
        let first = try await Self.hearth(["auth:import", "users.json"], in: folder)
        #expect(first.status == 0 && first.output.contains("2 users imported, 0 already there"), "\(first.output)")
        let again = try await Self.hearth(["auth:import", "users.json"], in: folder)
        #expect(again.status == 0 && again.output.contains("0 users imported, 2 already there with the same data"), "\(again.output)")

        let clash = #"{"users": [{"localId": "u3", "email": "u1@example.com"}]}"#
        try Data(clash.utf8).write(to: folder.appendingPathComponent("clash.json"))
        let refused = try await Self.hearth(["auth:import", "clash.json"], in: folder)
        #expect(refused.status == 1 && refused.output.contains("1 refused") && refused.output.contains("user 1: email exists"),
                "\(refused.output)")
    }

    /// `hearth admin-token` signs a single-use admin bearer with a service account's key file: curl's way into the
    /// admin API, working at once for an account created while the server runs. `hearth --version` says which build
    /// this is.
    @Test func adminTokensWorkOnceAgainstARunningServer() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-token-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let version = try await Self.hearth(["--version"], in: folder)
        // "0.9.0 (commit 0123456789ab of 2026-11-26T08:00:00Z)": the release, the commit and the commit's date.
        let versionLine = /(\d+)\.(\d+)\.(\d+) \(commit ([0-9a-f]{12}|unknown) of (\d{4}-\d{2}-\d{2}T[0-9:]+Z|unknown)\)\s*/
        #expect(version.status == 0 && (try? versionLine.wholeMatch(in: version.output)) != nil, "\(version.output)")
        let store = "sqlite:" + folder.appendingPathComponent("hearth-data/hearth.sqlite").path
        let (base, stop) = try await TwoInstanceRaceTests.startHearth(store: store)
        defer { stop() }
        // Created while the server runs: its key works at once, not after the project cache's 5 s.
        let created = try await Self.hearth(["service-accounts", "create", "backend-api"], in: folder)
        #expect(created.status == 0, "\(created.output)")
        let minted = try await Self.hearth(["admin-token", "--key-file", "hearth-data/service-accounts/backend-api.json", "--url", base],
                                           in: folder)
        let token = minted.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(minted.status == 0 && token.split(separator: ".").count == 3, "\(minted.output)")
        func lookup() async throws -> Int {
            var request = URLRequest(url: URL(string: base + "/identitytoolkit.googleapis.com/v1/projects/hearth-local/accounts:lookup")!)
            request.httpMethod = "POST"
            request.setValue("Bearer " + token, forHTTPHeaderField: "Authorization")
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(#"{"localId": ["nobody"]}"#.utf8)
            let (_, response) = try await URLSession.shared.data(for: request)
            return (response as? HTTPURLResponse)?.statusCode ?? 0
        }
        #expect(try await lookup() == 200)
        #expect(try await lookup() == 401, "a token is accepted once")
        let unreadable = try await Self.hearth(["admin-token", "--key-file", "missing.json"], in: folder)
        #expect(unreadable.status != 0 && unreadable.output.contains("cannot read missing.json"), "\(unreadable.output)")
    }

    /// The server's admin writes and the command line's changes race on the project record: a server that cached
    /// the record a moment before `hearth service-accounts delete` and `hearth keys rotate` writes its own change
    /// without putting the old record back (the deleted account's key stays dead, the new signing key stays).
    @Test func serverWritesNeverUndoTheCommandLinesChanges() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-cas-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = "sqlite:" + folder.appendingPathComponent("hearth-data/hearth.sqlite").path
        let (base, stop) = try await TwoInstanceRaceTests.startHearth(store: store)
        defer { stop() }
        for name in ["backend-api", "deleted-soon"] {
            #expect(try await Self.hearth(["service-accounts", "create", name], in: folder).status == 0)
        }
        func admin(_ method: String, _ path: String, _ body: String, keyFile: String) async throws -> Int {
            let minted = try await Self.hearth(["admin-token", "--key-file", keyFile, "--url", base], in: folder)
            var request = URLRequest(url: URL(string: base + "/identitytoolkit.googleapis.com" + path)!)
            request.httpMethod = method
            request.setValue("Bearer " + minted.output.trimmingCharacters(in: .whitespacesAndNewlines), forHTTPHeaderField: "Authorization")
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(body.utf8)
            let (_, response) = try await URLSession.shared.data(for: request)
            return (response as? HTTPURLResponse)?.statusCode ?? 0
        }
        let lookup = "/v1/projects/hearth-local/accounts:lookup"
        // The server now holds the record with both accounts and one key.
        #expect(try await admin("POST", lookup, #"{"localId": ["nobody"]}"#, keyFile: "hearth-data/service-accounts/backend-api.json") == 200)
        #expect(try await admin("POST", lookup, #"{"localId": ["nobody"]}"#, keyFile: "hearth-data/service-accounts/deleted-soon.json") == 200)
        #expect(try await Self.hearth(["service-accounts", "delete", "deleted-soon"], in: folder).status == 0)
        #expect(try await Self.hearth(["keys", "rotate"], in: folder).status == 0)
        // Within the server's cache lifetime, an admin write.
        let patched = try await admin("PATCH", "/v2/projects/hearth-local/config?updateMask=signIn.anonymous.enabled",
                                      #"{"signIn": {"anonymous": {"enabled": false}}}"#, keyFile: "hearth-data/service-accounts/backend-api.json")
        #expect(patched == 200)
        // Once the server's project cache (5 s) has moved on, what it uses is what is stored: the admin write did not
        // put back the deleted key.
        #expect(await eventually { (try? await admin("POST", lookup, #"{"localId": ["nobody"]}"#,
                                                     keyFile: "hearth-data/service-accounts/deleted-soon.json")) == 401 },
                "the deleted account's key stays dead")
        let listed = try await Self.hearth(["service-accounts", "list"], in: folder).output
        #expect(listed.contains("backend-api") && !listed.contains("deleted-soon"), "\(listed)")
        let keys = try await Self.keys(in: folder)
        #expect(keys.count == 2, "the rotated key stays: \(keys)")
    }

    /// `hearth users`: the Admin SDKs' user calls from a shell, with Firebase's refusals in words and `--json` for
    /// scripts.
    @Test func usersAreManagedFromTheCommandLine() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-users-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let created = try await Self.hearth(["users", "create", "--uid", "ada", "--email", "Ada@Example.com", "--password", "secret123",
                                       "--create-project"], in: folder)
        #expect(created.status == 0 && created.output.contains(/\nada +ada@example\.com +password/), "\(created.output)")
        let weak = try await Self.hearth(["users", "create", "--email", "b@example.com", "--password", "123"], in: folder)
        #expect(weak.status != 0 && weak.output.contains("refused: WEAK_PASSWORD"), "\(weak.output)")
        #expect(try await Self.hearth(["users", "set-claims", "ada", #"{"role":"admin"}"#], in: folder).status == 0)
        let reserved = try await Self.hearth(["users", "set-claims", "ada", #"{"sub":"x"}"#], in: folder)
        #expect(reserved.status != 0 && reserved.output.contains("refused: FORBIDDEN_CLAIM"), "\(reserved.output)")
        #expect(try await Self.hearth(["users", "disable", "ada@example.com"], in: folder).status == 0)
        let shown = try await Self.hearth(["users", "get", "ada", "--json"], in: folder)
        let json = try #require(shown.output.firstIndex(of: "{").map { String(shown.output[$0...]) })
        let user = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "\(shown.output)")
        #expect(user["disabled"] as? Bool == true && user["customAttributes"] as? String == #"{"role":"admin"}"#)
        let link = try await Self.hearth(["users", "reset-link", "ada@example.com"], in: folder)
        #expect(link.status == 0 && link.output.contains("/__/auth/action?mode=resetPassword&oobCode="), "\(link.output)")
        #expect(try await Self.hearth(["users", "revoke", "ada"], in: folder).output.contains("sessions revoked"))
        #expect(try await Self.hearth(["users", "delete", "ada"], in: folder).status == 0)
        let gone = try await Self.hearth(["users", "get", "ada"], in: folder)
        #expect(gone.status != 0 && gone.output.contains("no user ada"), "\(gone.output)")
    }

    /// `hearth keys`: rotate publishes a key that signs later; the only signing key cannot be retired; once another
    /// signs, the old one retires and stays published.
    @Test func keysRotateAndRetireFromTheCommandLine() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try await Self.hearth(["keys", "list", "--create-project"], in: folder)
        #expect(first.output.contains("KEY ID") && first.output.contains("STATE"), "a table with a header: \(first.output)")
        let oldKid = try #require(try await Self.keys(in: folder).first { $0["state"] == "signing" }?["kid"])
        let early = try await Self.hearth(["keys", "retire", String(oldKid)], in: folder)
        #expect(early.status != 0 && early.output.contains("the only key that can sign now"), "\(early.output)")
        let pending = try await Self.hearth(["keys", "rotate"], in: folder)
        #expect(pending.status == 0 && pending.output.contains("signs from"), "\(pending.output)")
        #expect(try await Self.hearth(["keys", "retire", String(oldKid)], in: folder).status != 0, "the new key does not sign yet")
        let now = try await Self.hearth(["keys", "rotate", "--activate-in", "0"], in: folder)
        #expect(now.output.contains("verifiers cache the JWKS"), "\(now.output)")
        let retired = try await Self.hearth(["keys", "retire", String(oldKid)], in: folder)
        #expect(retired.status == 0, "\(retired.output)")
        let listed = try await Self.keys(in: folder)
        #expect(listed.first { $0["kid"] == oldKid }?["state"]?.hasPrefix("retired, published until") == true, "\(listed)")
        #expect(listed.filter { $0["state"] == "signing" }.count == 1, "\(listed)")

        // A leaked key is revoked: gone from the list (unpublished) at once; revoking the signer starts a new one.
        let signer = try #require(listed.first { $0["state"] == "signing" }?["kid"])
        let revoked = try await Self.hearth(["keys", "revoke", String(signer)], in: folder)
        #expect(revoked.status == 0 && revoked.output.contains("signs from now"), "\(revoked.output)")
        let after = try await Self.keys(in: folder)
        #expect(!after.contains { $0["kid"] == signer }, "unpublished: \(after)")
        #expect(after.filter { $0["state"] == "signing" }.count == 1, "another key signs: \(after)")
        let unknown = try await Self.hearth(["keys", "revoke", "no-such-kid"], in: folder)
        #expect(unknown.status != 0 && unknown.output.contains("no key no-such-kid"), "\(unknown.output)")
    }

    /// `hearth backup` copies the SQLite store while a server takes sign-ups: the copy is a complete store that
    /// serves every account made before the copy began, and it is owner-only.
    @Test func backupsAreConsistentUnderLoad() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-backup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = "sqlite:" + folder.appendingPathComponent("hearth-data/hearth.sqlite").path
        // Emulator mode on a named SQLite file: its lowest-cost hashing keeps the load cheap for the other suites.
        let (base, stop) = try await TwoInstanceRaceTests.startHearth(store: store, settings: ["emulator": true])
        defer { stop() }
        func signUp(_ email: String) async throws {
            _ = try await TwoInstanceRaceTests.call(base, "accounts:signUp", ["email": email, "password": "secret123"])
        }
        for index in 0..<20 { try await signUp("before\(index)@example.com") }
        // Sign-ups keep coming while the copy is taken.
        let load = Task { for index in 0..<60 { try await signUp("during\(index)@example.com") } }
        let copied = try await Self.hearth(["backup", "copy.sqlite"], in: folder)
        try await load.value
        #expect(copied.status == 0 && copied.output.contains("owner-only"), "\(copied.output)")
        let mode = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent("copy.sqlite").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let listed = try await Self.hearth(["users", "list", "--limit", "1000", "--store", "sqlite:copy.sqlite"], in: folder)
        let users = listed.output.split(separator: "\n").filter { $0.contains("@example.com") }
        #expect(listed.status == 0 && users.count >= 20 && users.count <= 80, "\(listed.output.prefix(300))")
        let (copyBase, stopCopy) = try await TwoInstanceRaceTests.startHearth(
            store: "sqlite:" + folder.appendingPathComponent("copy.sqlite").path, settings: ["emulator": true])
        defer { stopCopy() }
        let signedIn = try await TwoInstanceRaceTests.call(copyBase, "accounts:signInWithPassword",
                                                           ["email": "before7@example.com", "password": "secret123"])
        #expect(signedIn["idToken"] is String, "the copy serves: \(signedIn)")
    }

    /// A PostgreSQL store is backed up with `pg_dump` while a server takes sign-ups (its snapshot is one
    /// transaction), and `pg_restore` into an empty database gives a store that serves every account made before
    /// the dump began, keys and all.
    @Test(.enabled(if: TemporaryPostgres.skipReason == nil, "needs PostgreSQL: \(TemporaryPostgres.skipReason ?? "")"))
    func postgresBackupsWithPgDumpAreConsistentUnderLoad() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-pgdump-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let bin = try #require(TemporaryPostgres.binDir)
        let source = try #require(try await TemporaryPostgres.freshDatabaseURL())
        let target = try #require(try await TemporaryPostgres.freshDatabaseURL())
        let (base, stop) = try await TwoInstanceRaceTests.startHearth(store: source, settings: ["emulator": true])
        defer { stop() }
        func signUp(_ email: String) async throws {
            _ = try await TwoInstanceRaceTests.call(base, "accounts:signUp", ["email": email, "password": "secret123"])
        }
        for index in 0..<20 { try await signUp("before\(index)@example.com") }
        let load = Task { for index in 0..<60 { try await signUp("during\(index)@example.com") } }
        let dumpFile = folder.appendingPathComponent("hearth.dump").path
        let dumped = try await runProcess(URL(fileURLWithPath: bin + "/pg_dump"),
                                          ["--format=custom", "--file", dumpFile, "--dbname", source])
        try await load.value
        #expect(dumped.status == 0, "\(dumped.output)")
        let restored = try await runProcess(URL(fileURLWithPath: bin + "/pg_restore"),
                                            ["--no-owner", "--exit-on-error", "--dbname", target, dumpFile])
        #expect(restored.status == 0, "\(restored.output)")

        let listed = try await Self.hearth(["users", "list", "--limit", "1000", "--store", target], in: folder)
        let users = listed.output.split(separator: "\n").filter { $0.contains("@example.com") }
        #expect(listed.status == 0 && users.count >= 20 && users.count <= 80, "\(listed.output.prefix(300))")
        #expect((0..<20).allSatisfy { index in users.contains { $0.contains("before\(index)@example.com") } })
        let (copyBase, stopCopy) = try await TwoInstanceRaceTests.startHearth(store: target, settings: ["emulator": true])
        defer { stopCopy() }
        let signedIn = try await TwoInstanceRaceTests.call(copyBase, "accounts:signInWithPassword",
                                                           ["email": "before7@example.com", "password": "secret123"])
        #expect(signedIn["idToken"] is String, "the restored database serves: \(signedIn)")
    }

    /// `--tenant`: the user commands, exports and imports act on one tenant's users; a tenant that does not exist
    /// is an error that says so.
    @Test func userCommandsExportsAndImportsTakeATenant() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-tenant-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = "sqlite:" + folder.appendingPathComponent("hearth.sqlite").path
        let (base, stop) = try await TwoInstanceRaceTests.startHearth(store: store, settings: ["emulator": true])
        defer { stop() }
        // Emulator mode makes each tenant on first use.
        for (email, tenant) in [("ada@example.com", "tenant-a"), ("bob@example.com", "tenant-a"), ("ada@example.com", "tenant-b")] {
            _ = try await TwoInstanceRaceTests.call(base, "accounts:signUp", ["email": email, "password": "secret123", "tenantId": tenant])
        }
        let listed = try await Self.hearth(["users", "list", "--store", store, "--tenant", "tenant-a"], in: folder)
        #expect(listed.status == 0 && listed.output.contains("bob@example.com") && listed.output.contains("tenant: tenant-a"),
                "\(listed.output)")
        let project = try await Self.hearth(["users", "list", "--store", store], in: folder)
        #expect(!project.output.contains("@example.com"), "the project's own list has no tenant users: \(project.output)")
        let exported = try await Self.hearth(["auth:export", "a.json", "--store", store, "--tenant", "tenant-a"], in: folder)
        #expect(exported.status == 0, "\(exported.output)")
        let file = try String(contentsOf: folder.appendingPathComponent("a.json"), encoding: .utf8)
        #expect(file.contains("bob@example.com") && file.contains("ada@example.com"))
        // The hashes are the project's Firebase scrypt (tenants share it): its parameters, as the console shows them.
        var request = URLRequest(url: URL(string: base + "/identitytoolkit.googleapis.com/v2/projects/hearth-local/config?view=full")!)
        request.setValue("Bearer owner", forHTTPHeaderField: "Authorization")
        let config = try JSONSerialization.jsonObject(with: try await URLSession.shared.data(for: request).0) as? [String: Any]
        let hash = try #require((config?["signIn"] as? [String: Any])?["hashConfig"] as? [String: Any], "\(String(describing: config))")
        let imported = try await Self.hearth([
            "auth:import", "a.json", "--store", store, "--tenant", "tenant-b", "--hash-algo", "SCRYPT",
            "--hash-key", try #require(hash["signerKey"] as? String), "--salt-separator", try #require(hash["saltSeparator"] as? String),
            "--rounds", "\(try #require(hash["rounds"] as? Int))", "--mem-cost", "\(try #require(hash["memoryCost"] as? Int))",
        ], in: folder)
        #expect(imported.status != 0 && imported.output.contains("email"), "ada@ exists in tenant-b already: \(imported.output)")
        let listedB = try await Self.hearth(["users", "list", "--store", store, "--tenant", "tenant-b"], in: folder)
        #expect(listedB.output.contains("bob@example.com"), "bob was imported into tenant-b: \(listedB.output)")
        let signedIn = try await TwoInstanceRaceTests.call(base, "accounts:signInWithPassword",
                                                           ["email": "bob@example.com", "password": "secret123", "tenantId": "tenant-b"])
        #expect(signedIn["idToken"] is String, "the imported hash signs in: \(signedIn)")
        let missing = try await Self.hearth(["users", "list", "--store", store, "--tenant", "nope"], in: folder)
        #expect(missing.status != 0 && missing.output.contains("no tenant nope"), "\(missing.output)")
    }

    /// `hearth store encrypt` seals an existing store's secrets; afterwards every command needs the key, and says so.
    @Test func storesAreEncryptedWithAKeyFromTheEnvironment() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-seal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let plain = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") }
        let keyed = plain.merging(["HEARTH_ENCRYPTION_KEY": Data(repeating: 42, count: 32).base64EncodedString()]) { $1 }
        #expect(try await runHearth(["users", "list", "--create-project"], in: folder, environment: plain).status == 0)
        let keyless = try await runHearth(["store", "encrypt"], in: folder, environment: plain)
        #expect(keyless.status != 0 && keyless.output.contains("set HEARTH_ENCRYPTION_KEY"), "\(keyless.output)")
        let sealed = try await runHearth(["store", "encrypt"], in: folder, environment: keyed)
        #expect(sealed.status == 0 && sealed.output.contains("encrypted project hearth-local"), "\(sealed.output)")
        let raw = try Data(contentsOf: folder.appendingPathComponent("hearth-data/hearth.sqlite"))
        #expect(raw.range(of: Data("BEGIN PRIVATE KEY".utf8)) == nil, "no private key in the clear")
        let without = try await runHearth(["users", "list"], in: folder, environment: plain)
        #expect(without.status != 0 && without.output.contains("holds encrypted secrets"), "\(without.output)")
        #expect(try await runHearth(["users", "list"], in: folder, environment: keyed).status == 0)
    }
}


extension CLIStoreTests {
    /// `hearth console-admins`: an operator made with a password from the environment and a TOTP secret printed
    /// once, listed, then deleted; a short password is refused.
    @Test func consoleOperatorsAreCreatedListedAndDeleted() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-console-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("HEARTH_") }
        _ = try await Self.hearth(["service-accounts", "create", "bootstrap-key", "--create-project"], in: folder)
        environment["HEARTH_CONSOLE_PASSWORD"] = "short"
        let weak = try await runHearth(["console-admins", "create", "ops@example.com"], in: folder, environment: environment)
        #expect(weak.status != 0 && weak.output.contains("at least 12 characters"), "\(weak.output)")
        environment["HEARTH_CONSOLE_PASSWORD"] = "correct horse battery"
        let created = try await runHearth(["console-admins", "create", "ops@example.com"], in: folder, environment: environment)
        #expect(created.status == 0 && created.output.contains("otpauth://totp/") && created.output.contains("secret="), "\(created.output)")
        // The link is also a QR code on the terminal, which a real decoder (zbarimg) reads back as the same link.
        let link = try #require(created.output.split(separator: "\n").first { $0.hasPrefix("otpauth://") }.map(String.init))
        if let decoded = try await Self.decodeQR(in: created.output) {
            #expect(decoded == link, "the terminal's QR code holds the link")
        }
        let again = try await runHearth(["console-admins", "create", "OPS@example.com"], in: folder, environment: environment)
        #expect(again.status != 0 && again.output.contains("already has a console operator"), "\(again.output)")
        let listed = try await Self.hearth(["console-admins", "list"], in: folder)
        #expect(listed.status == 0 && listed.output.contains("ops@example.com") && listed.output.contains("TOTP"), "\(listed.output)")
        #expect(!listed.output.contains("secret"), "the secret is shown once, at creation")
        // A lost authenticator and a forgotten password: reset, with a new secret shown once.
        let nothing = try await runHearth(["console-admins", "reset", "ops@example.com"], in: folder, environment: environment)
        #expect(nothing.status != 0 && nothing.output.contains("--password, --authenticator"), "\(nothing.output)")
        let oldSecret = created.output.split(separator: "\n").first { $0.contains("shown once") }
        environment["HEARTH_CONSOLE_PASSWORD"] = "another horse battery"
        let reset = try await runHearth(["console-admins", "reset", "ops@example.com", "--password", "--authenticator"],
                                        in: folder, environment: environment)
        let newSecret = reset.output.split(separator: "\n").first { $0.contains("shown once") }
        #expect(reset.status == 0 && reset.output.contains("sessions have ended") && newSecret != nil && newSecret != oldSecret,
                "\(reset.output)")
        let stranger = try await runHearth(["console-admins", "reset", "nobody@example.com", "--authenticator"], in: folder,
                                           environment: environment)
        #expect(stranger.status != 0 && stranger.output.contains("no console operator"), "\(stranger.output)")
        let deleted = try await Self.hearth(["console-admins", "delete", "ops@example.com"], in: folder)
        #expect(deleted.status == 0, "\(deleted.output)")
        #expect(try await Self.hearth(["console-admins", "list"], in: folder).output.contains("no console operators"))
    }
}
