import Foundation
import HearthWire

/// Copies a Firebase Authentication project from one Admin REST API to another: the project config, the identity
/// providers, the tenants with theirs, then every user with their password hash, providers, second factors, claims,
/// metadata and disabled state. The source is a live API or an emulator's export folder (``ProjectSource``); the
/// target an Admin REST API. Every step is idempotent (settings are PATCHed with their mask, providers and
/// tenants matched by id and display name, users by uid), so a move can run again after an interruption or to pick
/// up late sign-ups. With `dryRun` it reads both sides and writes nothing.
struct ProjectMove {
    var source: any ProjectSource
    var target: AdminREST
    var dryRun: Bool
    var overwriteUsers: Bool
    /// Scrypt's parameters from the command line, for a source whose config does not show them.
    var givenHashing: [String: Any]?
    var report = MoveReport()
    /// Target tenant id → source tenant id, of the tenants moved (a lazy migration checks their users there).
    var tenantSources: [String: String] = [:]
    var log: (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }

    static let idpCollections = [("defaultSupportedIdpConfigs", "idpId"), ("oauthIdpConfigs", "oauthIdpConfigId"),
                                 ("inboundSamlConfigs", "inboundSamlConfigId")]
    /// What a tenant's create and update take (the rest of a tenant resource is output, or Google Cloud's).
    static let tenantFields: Set<String> = ["displayName", "allowPasswordSignup", "enableEmailLinkSignin",
                                            "enableAnonymousUser", "disableAuth", "emailPrivacyConfig", "mfaConfig",
                                            "testPhoneNumbers", "passwordPolicyConfig", "autodeleteAnonymousUsers",
                                            "smsRegionConfig", "recaptchaConfig"]

    mutating func run() async throws {
        let config = try await source.config()
        try await moveConfig(config)
        try await moveProviders(tenant: nil, into: nil)
        let tenants = try await moveTenants()
        let hashing = Self.hashParameters(config) ?? givenHashing
        try await moveUsers(tenant: nil, into: nil, hashing: hashing)
        for (from, to) in tenants {
            guard let to else {  // a dry run, and a tenant still to create: everything in it would be new
                try await moveProviders(tenant: from, into: nil, newTenant: true)
                try await moveUsers(tenant: from, into: nil, hashing: hashing, newTenant: true)
                continue
            }
            try await moveProviders(tenant: from, into: to)
            try await moveUsers(tenant: from, into: to, hashing: hashing)
        }
    }

    // MARK: The project config

    mutating func moveConfig(_ config: [String: Any]) async throws {
        // An email template the source never changed is its own wording (Google's, or Hearth's): the target keeps its own.
        let templates = "notification.sendEmail."
        var paths = ProjectConfigPatch.writablePaths.filter {
            Self.value(at: $0, in: config) != nil && (!$0.hasPrefix(templates) || Self.value(at: $0 + ".customized", in: config) as? Bool == true)
        }.sorted()
        if Self.value(at: templates + "revertSecondFactorAdditionTemplate.customized", in: config) as? Bool == true {
            report.skip("email template revertSecondFactorAdditionTemplate", because: "Hearth does not send this email")
        }
        var body = Self.subset(of: config, at: paths)
        if var sendEmail = (body["notification"] as? [String: Any])?["sendEmail"] as? [String: Any] {
            for (field, template) in sendEmail { sendEmail[field] = (template as? [String: Any])?.filter { $0.key != "customized" } }
            body["notification"] = ["sendEmail": sendEmail]  // `customized` is output: Google's API takes no output fields
        }
        if dryRun {
            report.settings = paths
            return
        }
        // A setting the target's own configuration fixes is refused by name: the rest still moves. A target that
        // refuses the whole (Firebase's emulator keeps a few settings only) is given them one at a time.
        while !paths.isEmpty {
            do {
                try await target.call(.PATCH, target.owner("v2") + "/config?updateMask=" + paths.joined(separator: ","), body)
                break
            } catch let failure as AdminREST.Failure {
                if let refused = paths.first(where: { failure.message.contains($0 + " is set by") }) {
                    paths.removeAll { $0 == refused }
                    report.skip("setting \(refused)", because: String(failure.message.drop { $0 != ":" }.dropFirst(2)))
                    continue
                }
                var kept: [String] = []
                for path in paths {
                    do {
                        try await target.call(.PATCH, target.owner("v2") + "/config?updateMask=" + path,
                                              Self.subset(of: body, at: [path]))
                        kept.append(path)
                    } catch let one as AdminREST.Failure {
                        report.skip("setting \(path)", because: one.message)
                    }
                }
                paths = kept
                break
            }
        }
        report.settings = paths
        log("config: \(paths.count) settings")
    }

    /// Only what `paths` name: an API answers a field it does not know with an error, and a source sends fields
    /// (quotas, client settings, Google Cloud metadata) no move copies.
    static func subset(of object: [String: Any], at paths: [String]) -> [String: Any] {
        var out: [String: Any] = [:]
        func set(_ value: Any, _ keys: ArraySlice<Substring>, in target: inout [String: Any]) {
            guard let first = keys.first.map(String.init) else { return }
            if keys.count == 1 { target[first] = value; return }
            var child = target[first] as? [String: Any] ?? [:]
            set(value, keys.dropFirst(), in: &child)
            target[first] = child
        }
        for path in paths {
            if let value = value(at: path, in: object) { set(value, path.split(separator: ".")[...], in: &out) }
        }
        return out
    }

    static func value(at path: String, in object: [String: Any]) -> Any? {
        var current: Any? = object
        for key in path.split(separator: ".") { current = (current as? [String: Any])?[String(key)] }
        return current
    }

    // MARK: Identity providers

    mutating func moveProviders(tenant: String?, into targetTenant: String?, newTenant: Bool = false) async throws {
        let scope = tenant.map { "tenant \($0): " } ?? ""
        for (collection, idParameter) in Self.idpCollections {
            let configs: [[String: Any]]
            switch try await source.providers(collection, tenant: tenant) {
            case .listed(let listed): configs = listed
            case .unavailable(let why):
                report.skip("\(scope)\(collection)", because: "the source does not list them (\(why))")
                continue
            }
            for config in configs {
                guard let id = (config["name"] as? String)?.split(separator: "/").last.map(String.init) else { continue }
                var body = config
                body.removeValue(forKey: "name")
                if collection != "inboundSamlConfigs", config["clientSecret"] == nil, config["enabled"] as? Bool == true {
                    report.skip("\(scope)\(id) client secret", because: "the source did not return it: set it on the target")
                }
                if newTenant {
                    report.providers += 1
                    continue
                }
                let url = target.owner("v2", tenant: targetTenant) + "/\(collection)/\(id)"
                let exists: Bool
                do {
                    try await target.call(.GET, url)
                    exists = true
                } catch let failure as AdminREST.Failure where failure.isNotFound {
                    exists = false
                } catch let failure as AdminREST.Failure {
                    report.skip("\(scope)provider \(id)", because: "the target cannot take it (\(failure.message))")
                    continue
                }
                if !dryRun {
                    do {
                        if exists {
                            try await target.call(.PATCH, url + "?updateMask=" + body.keys.sorted().joined(separator: ","), body)
                        } else {
                            try await target.call(.POST, target.owner("v2", tenant: targetTenant)
                                                  + "/\(collection)?\(idParameter)=\(id)", body)
                        }
                    } catch let failure as AdminREST.Failure {
                        report.skip("\(scope)provider \(id)", because: failure.message)
                        continue
                    }
                }
                report.providers += 1
            }
        }
    }

    // MARK: Tenants

    /// Creates or updates each tenant, matched by display name; returns source id → target id (`nil`: a dry run's
    /// tenant the target does not have yet).
    mutating func moveTenants() async throws -> [(String, String?)] {
        let sources = try await source.tenants()
        guard !sources.isEmpty else { return [] }
        let existing = try await target.list(target.owner("v2") + "/tenants", key: "tenants")
        var pairs: [(String, String?)] = []
        for tenant in sources {
            guard let id = tenant["tenantId"] as? String ?? (tenant["name"] as? String)?.split(separator: "/").last.map(String.init)
            else { continue }
            let name = tenant["displayName"] as? String
            let body = tenant.filter { Self.tenantFields.contains($0.key) }
            let match = existing.first { name != nil && $0["displayName"] as? String == name }
            var targetID = (match?["tenantId"] as? String) ?? (match?["name"] as? String)?.split(separator: "/").last.map(String.init)
            if !dryRun {
                do {
                    if let targetID {
                        try await target.call(.PATCH, target.owner("v2") + "/tenants/\(targetID)?updateMask="
                                              + body.keys.sorted().joined(separator: ","), body)
                    } else {
                        let made = try await target.call(.POST, target.owner("v2") + "/tenants", body)
                        targetID = made["tenantId"] as? String ?? (made["name"] as? String)?.split(separator: "/").last.map(String.init)
                    }
                } catch let failure as AdminREST.Failure {
                    report.skip("tenant \(id)", because: failure.message)
                    continue
                }
            }
            report.tenants += 1
            pairs.append((id, targetID))
            if let targetID { tenantSources[targetID] = id }
            log("tenant \(id) → \(targetID ?? "(new)")")
        }
        return pairs
    }

    // MARK: Users

    /// Firebase scrypt's parameters from the source's `signIn.hashConfig`, as `accounts:batchCreate` takes them.
    static func hashParameters(_ config: [String: Any]) -> [String: Any]? {
        guard let hash = (config["signIn"] as? [String: Any])?["hashConfig"] as? [String: Any],
              let algorithm = hash["algorithm"] as? String, algorithm.uppercased() == "SCRYPT",
              let signerKey = hash["signerKey"] as? String else { return nil }
        return ["hashAlgorithm": "SCRYPT", "signerKey": signerKey, "saltSeparator": hash["saltSeparator"] as? String ?? "",
                "rounds": hash["rounds"] as? Int ?? 8, "memoryCost": hash["memoryCost"] as? Int ?? 14]
    }

    mutating func moveUsers(tenant: String?, into targetTenant: String?, hashing: [String: Any]?,
                            newTenant: Bool = false) async throws {
        var progress = Progress()
        var token: String?
        let scope = tenant.map { "tenant \($0)" } ?? "project"
        var moved = 0
        repeat {
            let page = try await source.users(tenant: tenant, after: token)
            token = page.next
            let users = page.users.map { convert($0, hashing: hashing) }
            guard !users.isEmpty else { break }
            if newTenant { report.usersCreated += users.count } else {
                try await createUsers(users, into: targetTenant, hashing: hashing)
            }
            moved += users.count
            progress.show(moved, "users read (\(scope))")
        } while token != nil
        progress.show(moved, "users read (\(scope))", final: true)
    }

    private mutating func createUsers(_ users: [[String: Any]], into targetTenant: String?, hashing: [String: Any]?) async throws {
        let url = target.owner("v1", tenant: targetTenant) + "/accounts:batchCreate"
        if dryRun {
            // 100 uids per lookup: what Google's API takes (the Admin SDKs' `getUsers` sends no more).
            let uids = users.compactMap { $0["localId"] as? String }
            for start in stride(from: 0, to: uids.count, by: 100) {
                let chunk = Array(uids[start..<min(start + 100, uids.count)])
                let found = try await target.call(.POST, target.owner("v1", tenant: targetTenant) + "/accounts:lookup", ["localId": chunk])
                let there = (found["users"] as? [[String: Any]] ?? []).count
                report.usersExisting += there
                report.usersCreated += chunk.count - there
            }
            return
        }
        var body: [String: Any] = ["users": users, "allowOverwrite": overwriteUsers]
        if let hashing { body.merge(hashing) { $1 } }
        let answer = try await target.call(.POST, url, body)
        var alreadyThere = 0
        for error in answer["error"] as? [[String: Any]] ?? [] {
            let message = error["message"] as? String ?? "refused"
            // Google's words for a uid the target has (Hearth's are the same).
            if message.contains("belongs to an existing account") || message.contains("DUPLICATE_LOCAL_ID") {
                alreadyThere += 1
            } else {
                let index = error["index"] as? Int ?? -1
                let uid = users.indices.contains(index) ? users[index]["localId"] as? String ?? "?" : "?"
                report.skip("user \(uid)", because: message)
            }
        }
        let refused = (answer["error"] as? [[String: Any]] ?? []).count
        report.usersExisting += alreadyThere
        report.usersCreated += users.count - refused
    }

    /// A `batchGet` user as `batchCreate` takes it: the emulator's plain-text stand-in for a hash becomes the
    /// password it holds, providers Hearth derives itself (`password`, `phone`) are left to it, and what cannot be
    /// exported (TOTP secrets, a hash without the project's parameters) is reported.
    mutating func convert(_ user: [String: Any], hashing: [String: Any]?) -> [String: Any] {
        let kept = ["localId", "email", "emailVerified", "passwordHash", "salt", "displayName", "photoUrl", "phoneNumber",
                    "disabled", "customAttributes"]
        var out = user.filter { kept.contains($0.key) }
        for key in ["createdAt", "lastLoginAt"] {
            if let value = user[key] as? String, let number = Int64(value) { out[key] = number }
            else if let number = user[key] as? Int64 { out[key] = number }
        }
        let uid = user["localId"] as? String ?? "?"
        if let hash = user["passwordHash"] as? String, hash.hasPrefix("fakeHash:salt="), target.isEmulator {
            // Both emulators take their stand-in hash as it is (with its salt): a move between emulators, and back,
            // keeps every password.
        } else if let hash = user["passwordHash"] as? String, hash.hasPrefix("fakeHash:salt="),
           let marker = hash.range(of: ":password=") {
            out["rawPassword"] = String(hash[marker.upperBound...])
            out.removeValue(forKey: "passwordHash")
            out.removeValue(forKey: "salt")
        } else if user["passwordHash"] != nil, hashing == nil {
            out.removeValue(forKey: "passwordHash")
            out.removeValue(forKey: "salt")
            report.usersWithoutHash += 1
        } else if user["passwordHash"] == nil, (user["providerUserInfo"] as? [[String: Any]])?.contains(where: { $0["providerId"] as? String == "password" }) == true {
            report.usersWithoutHash += 1
        }
        // The `password` entry stays when the password itself does not move: the target then knows the password is
        // still at the source (a lazy migration checks it there once).
        let passwordStays = out["passwordHash"] == nil && out["rawPassword"] == nil
        let providers = (user["providerUserInfo"] as? [[String: Any]] ?? []).filter {
            let id = $0["providerId"] as? String ?? ""
            return id == "password" ? passwordStays : id != "phone"
        }.map { $0.filter { ["providerId", "rawId", "email", "displayName", "photoUrl", "phoneNumber", "screenName"].contains($0.key) } }
        if !providers.isEmpty { out["providerUserInfo"] = providers }
        let factors = user["mfaInfo"] as? [[String: Any]] ?? []
        let phones = factors.filter { $0["phoneInfo"] != nil }
            .map { $0.filter { ["mfaEnrollmentId", "displayName", "phoneInfo", "enrolledAt"].contains($0.key) } }
        if !phones.isEmpty { out["mfaInfo"] = phones }
        if phones.count < factors.count {
            report.skip("user \(uid) TOTP second factor", because: "its secret is never exported: the user enrolls again")
        }
        return out
    }
}

/// What a move did, or would do, and what it left and why.
struct MoveReport {
    var settings: [String] = []
    var providers = 0
    var tenants = 0
    var usersCreated = 0
    var usersExisting = 0
    var usersWithoutHash = 0
    var skipped: [(what: String, why: String)] = []

    mutating func skip(_ what: String, because why: String) { skipped.append((what, why)) }

    func lines(dryRun: Bool) -> [String] {
        let verb = dryRun ? "would be " : ""
        var lines = [
            "settings: \(settings.count) \(verb)set" + (settings.isEmpty ? "" : " (\(settings.joined(separator: ", ")))"),
            "identity providers: \(providers) \(verb)created or updated",
            "tenants: \(tenants) \(verb)created or updated",
            "users: \(usersCreated) \(verb)created, \(usersExisting) already there (unchanged; --overwrite-users replaces them)",
        ]
        if usersWithoutHash > 0 {
            lines.append("users without an exportable password hash: \(usersWithoutHash) (they sign in with a reset "
                         + "link, or see docs/migration.md)")
        }
        if !skipped.isEmpty {
            lines.append("skipped: \(skipped.count)")
            lines += skipped.prefix(100).map { "  \($0.what): \($0.why)" }
            if skipped.count > 100 { lines.append("  … and \(skipped.count - 100) more") }
        }
        return lines
    }
}
