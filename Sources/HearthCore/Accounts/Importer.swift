import Foundation

/// How the password hashes of an import batch were made: Firebase's `hashAlgorithm` with its parameters
/// (`accounts:batchCreate`, `hearth auth:import`, `firebase auth:import --hash-algo …`).
public enum ImportHashing: Sendable {
    case firebaseScrypt(FirebaseScryptParameters)
    /// The algorithm for a user's salt (every user of a batch shares the parameters).
    case imported(@Sendable (Data) -> ImportedHash.Algorithm)
    case bcrypt

    /// Reads Firebase's parameters, with Firebase's limits and error codes.
    ///
    /// ```swift
    /// let hashing = try ImportHashing(algorithm: "SCRYPT", signerKey: key, saltSeparator: Data([7]), rounds: 8,
    ///                                 memoryCost: 14)
    /// ```
    public init(algorithm: String, signerKey: Data? = nil, saltSeparator: Data? = nil, rounds: Int? = nil,
                memoryCost: Int? = nil, cpuMemCost: Int? = nil, parallelization: Int? = nil, blockSize: Int? = nil,
                order: String? = nil) throws {
        let inputOrder: ImportedHash.InputOrder?
        switch order {
        case nil, "UNSPECIFIED_ORDER": inputOrder = nil
        case "SALT_AND_PASSWORD", "SALT_FIRST": inputOrder = .saltFirst
        case "PASSWORD_AND_SALT", "PASSWORD_FIRST": inputOrder = .passwordFirst
        default: throw AuthFailure.invalidImportParameter("INVALID_PASSWORD_HASH_ORDER")
        }
        func digest(_ name: Substring) throws -> ImportedHash.Digest {
            guard let digest = ImportedHash.Digest(rawValue: String(name)) else {
                throw AuthFailure.invalidImportParameter("INVALID_HASH_ALGORITHM")
            }
            return digest
        }
        switch algorithm {
        case "SCRYPT":
            guard let signerKey, !signerKey.isEmpty else { throw AuthFailure.invalidImportParameter("INVALID_HASH_KEY") }
            guard let rounds, (1...8).contains(rounds) else { throw AuthFailure.invalidImportParameter("INVALID_HASH_ROUNDS") }
            guard let memoryCost, (1...14).contains(memoryCost) else {
                throw AuthFailure.invalidImportParameter("INVALID_HASH_MEMORY_COST")
            }
            self = .firebaseScrypt(FirebaseScryptParameters(signerKey: signerKey, saltSeparator: saltSeparator ?? Data(),
                                                            rounds: rounds, memoryCost: memoryCost))
        case "STANDARD_SCRYPT":
            guard let n = cpuMemCost ?? memoryCost, n > 1, n & (n - 1) == 0, n <= 1 << 20 else {
                throw AuthFailure.invalidImportParameter("INVALID_HASH_MEMORY_COST")
            }
            guard let r = blockSize, (1...32).contains(r) else { throw AuthFailure.invalidImportParameter("INVALID_HASH_BLOCK_SIZE") }
            guard let p = parallelization, (1...64).contains(p) else {
                throw AuthFailure.invalidImportParameter("INVALID_HASH_PARALLELIZATION")
            }
            // Every sign-in of these users would pay this: refused above the budget (see HashBudget).
            guard (try? HashBudget.check(scryptN: n, r: r, p: p)) != nil else {
                throw AuthFailure.invalidImportParameter("INVALID_HASH_MEMORY_COST")
            }
            self = .imported { _ in .standardScrypt(n: n, r: r, p: p) }
        case "BCRYPT":
            self = .bcrypt
        case "PBKDF_SHA1", "PBKDF2_SHA256":
            guard let rounds, (1...120_000).contains(rounds) else { throw AuthFailure.invalidImportParameter("INVALID_HASH_ROUNDS") }
            let hash: ImportedHash.Digest = algorithm == "PBKDF_SHA1" ? .sha1 : .sha256
            self = .imported { _ in .pbkdf2(hash, rounds: rounds) }
        case let name where name.hasPrefix("HMAC_"):
            let hash = try digest(name.dropFirst(5))
            guard let signerKey, !signerKey.isEmpty else { throw AuthFailure.invalidImportParameter("INVALID_HASH_KEY") }
            let order = inputOrder ?? .passwordFirst
            self = .imported { _ in .hmac(hash, key: signerKey, order: order) }
        case "MD5", "SHA1", "SHA256", "SHA512":
            let hash = try digest(Substring(algorithm))
            let range = hash == .md5 ? 0...8192 : 1...8192
            guard let rounds = rounds ?? (hash == .md5 ? 0 : nil), range.contains(rounds) else {
                throw AuthFailure.invalidImportParameter("INVALID_HASH_ROUNDS")
            }
            let order = inputOrder ?? .saltFirst
            self = .imported { _ in .digest(hash, rounds: rounds, order: order) }
        default:
            throw AuthFailure.invalidImportParameter("INVALID_HASH_ALGORITHM")
        }
    }

    /// The stored hash string for one user's `passwordHash` and `salt`.
    func stored(hash: Data, salt: Data?) -> String {
        switch self {
        case .firebaseScrypt(let parameters):
            PasswordHash.format(FirebaseScryptHash(parameters: parameters, salt: salt ?? Data(), hash: hash))
        case .imported(let algorithm):
            ImportedHash(algorithm: algorithm(salt ?? Data()), salt: salt ?? Data(), hash: hash).stored
        case .bcrypt:
            String(decoding: hash, as: UTF8.self)
        }
    }
}

/// One user of an import batch, as `accounts:batchCreate` and the `auth:import` file formats describe it.
public struct ImportUser: Sendable, Equatable {
    public var localID: String?
    public var email: String?
    public var emailVerified = false
    public var passwordHash: Data?
    public var salt: Data?
    public var displayName: String?
    public var photoURL: String?
    public var phoneNumber: String?
    public var disabled = false
    public var createdAt: Date?
    public var lastLoginAt: Date?
    /// A JSON object, as a string (Firebase's `customAttributes`).
    public var customAttributes: String?
    public var providers: [ProviderUserInfo] = []
    /// Phone second factors (`mfaInfo`).
    public var mfa: [MFAEnrollmentInput] = []
    /// A plain password, hashed with the project's parameters on import (Firebase's input-only `rawPassword`).
    public var rawPassword: String?
    /// Firebase's emulator's `fakeHash:salt=…:password=…` (taken in emulator mode only).
    public var emulatorFakeHash: String?
    /// An identity entry that cannot be linked as given.
    public var incompleteIdentity: IncompleteIdentity?
    /// The tenant the record names, if any: it must be the one imported into.
    public var tenantID: String?

    public enum IncompleteIdentity: Sendable, Equatable {
        /// Neither `providerId` and `rawId` nor a `federatedId`.
        case missingIDs
        /// Only a `federatedId`, which Hearth does not parse.
        case federatedIDOnly
    }

    public init(localID: String?, email: String? = nil) {
        self.localID = localID
        self.email = email
    }
}

/// A user an import did not take, with Firebase's message for it.
public struct ImportRejection: Sendable, Equatable {
    public var index: Int
    public var message: String
}

/// Bulk import of users with their password hashes (`accounts:batchCreate`, `hearth auth:import`).
public struct Importer: UseCase {
    public let context: AccountContext
    /// The store concerns this use case reads and writes itself (the shared pipeline, `completeSignIn` and
    /// `create`, takes its own).
    var store: any UserStore { context.store }
    public init(context: AccountContext) { self.context = context }
    /// The most users one import call takes (Firebase's limit).
    public static let importBatchLimit = 1000

    /// Imports a batch: each user is checked and stored on its own, so one bad entry costs only itself and never
    /// leaves a half-written account; the answer lists the rejected ones by index with Firebase's messages.
    /// Password hashes are kept as they are (``ImportedHash``, bcrypt, or Firebase scrypt with the batch's
    /// parameters) and re-hashed with the project's parameters at each user's first successful sign-in.
    ///
    /// With `sanityCheck`, an email (under one account per email) or an identity named twice in the batch refuses
    /// the whole batch (`DUPLICATE_EMAIL`, `DUPLICATE_RAW_ID`), as Firebase does.
    public func importUsers(in project: ProjectContext, _ users: [ImportUser], hashing: ImportHashing?,
                            allowOverwrite: Bool = false, sanityCheck: Bool = false) async throws -> [ImportRejection] {
        try await importBatch(in: project, users, hashing: hashing, allowOverwrite: allowOverwrite,
                              sanityCheck: sanityCheck).rejections
    }

    /// What one batch of a re-runnable import did.
    public struct ImportReport: Sendable, Equatable {
        /// Users not imported, with Firebase's message.
        public var rejections: [ImportRejection] = []
        /// Users already stored with the same data (a re-run after an interruption): skipped, not errors.
        public var unchanged: [Int] = []
    }

    /// `hearth auth:import`: as ``importUsers(in:_:hashing:allowOverwrite:sanityCheck:)``, except that a user
    /// already stored with the same data counts as unchanged rather than refused, so an import can be run again
    /// after an interruption; with `dryRun` every check runs against the store and nothing is written.
    public func importBatch(in project: ProjectContext, _ users: [ImportUser], hashing: ImportHashing?,
                            allowOverwrite: Bool = false, sanityCheck: Bool = false, skipUnchanged: Bool = false,
                            dryRun: Bool = false) async throws -> ImportReport {
        guard !users.isEmpty else { throw AuthFailure.invalidImportParameter("MISSING_USER_ACCOUNT") }
        guard users.count <= Self.importBatchLimit else {
            throw AuthFailure.invalidImportParameter("MAXIMUM_USER_COUNT_EXCEEDED")
        }
        if sanityCheck {
            var emails = Set<String>(), identities = Set<String>()
            for user in users {
                if !project.settings[.allowDuplicateEmails], let email = user.email,
                   !emails.insert(EmailAddress.normalized(email)).inserted {
                    throw AuthFailure.duplicateEmail(email)
                }
                for identity in user.providers where !identities.insert(identity.providerID + "\u{0}" + identity.rawID).inserted {
                    throw AuthFailure.duplicateRawID("Provider id(\(identity.providerID)), Raw id(\(identity.rawID))")
                }
            }
        }
        var seen = Set<String>()
        for user in users {
            guard let id = user.localID else { continue }
            guard seen.insert(id).inserted else { throw AuthFailure.duplicateLocalID(id) }
        }
        let now = clock.now()
        let uniqueEmail = !project.settings[.allowDuplicateEmails]
        var rejections: [ImportRejection] = []
        var valid: [(index: Int, record: UserRecord)] = []
        for (index, user) in users.enumerated() {
            do {
                var rawPasswordHash: String?
                if let raw = user.rawPassword, user.passwordHash == nil, user.emulatorFakeHash == nil {
                    do { try PasswordPolicy.check(raw) } catch { throw ImportProblem("rawPassword is too short") }
                    rawPasswordHash = try await hashPassword(raw, project: project)
                }
                let record = try importedRecord(user, project: project, hashing: hashing, now: now,
                                                rawPasswordHash: rawPasswordHash)
                valid.append((index, try await create(record, origin: .import, in: project)))
            } catch let problem as ImportProblem {
                rejections.append(ImportRejection(index: index, message: problem.message))
            } catch AuthFailure.blockingFunctionError(let reason) {
                // A record the project's `beforeCreate` refuses (`blockingFunctionsOnAdminCreate`) is reported by
                // its index, like any refused record; the rest of the batch is imported.
                rejections.append(ImportRejection(index: index, message: "BLOCKING_FUNCTION_ERROR_RESPONSE : \(reason)"))
            }
        }
        var unchanged: [Int] = []
        if skipUnchanged {
            // A run again after an interruption: the users already stored as imported are read in one query and
            // left out, instead of each failing its insert and being read back one by one.
            let stored = try await store.users(projectID: project.id, tenantID: project.tenantID,
                                               localIDs: valid.map(\.record.localID))
            let byID = Dictionary(stored.map { ($0.localID, $0) }, uniquingKeysWith: { first, _ in first })
            valid.removeAll { index, record in
                guard let existing = byID[record.localID],
                      existing.holds(imported: record, comparingCreation: users[index].createdAt != nil) else { return false }
                unchanged.append(index)
                return true
            }
        }
        // The whole batch in one go; taken ids are overwritten afterwards when the caller allows it.
        let refused = dryRun ? try await wouldRefuse(valid.map(\.record), uniqueEmail: uniqueEmail)
            : try await store.insertUsers(valid.map(\.record), uniqueEmail: uniqueEmail)
        for (position, error) in refused.sorted(by: { $0.key < $1.key }) {
            let (index, record) = valid[position]
            // The id, its email or its identity is taken: by this very user, unchanged, when an import runs again.
            if skipUnchanged, let stored = try await store.user(projectID: record.projectID, tenantID: record.tenantID, localID: record.localID),
               stored.holds(imported: record, comparingCreation: users[index].createdAt != nil) {
                unchanged.append(index)
                continue
            }
            if dryRun, error == .duplicateLocalID, allowOverwrite { continue }
            if error == .duplicateLocalID, allowOverwrite {
                do {
                    // An overwrite replaces the account whatever it holds now: compare against the stored version.
                    var replacement = record
                    replacement.version = try await store.user(projectID: record.projectID, tenantID: record.tenantID,
                                                               localID: record.localID)?.version
                    try await store.updateUser(replacement, uniqueEmail: uniqueEmail, revokeRefreshTokens: true)
                    continue
                } catch StoreError.emailExists {
                    rejections.append(ImportRejection(index: index, message: "email exists in other account in database"))
                    continue
                }
            }
            let message = switch error {
            case .emailExists: "email exists in other account in database"
            case .identityLinked: "raw id exists in other account in database"
            default: "localId belongs to an existing account - can not overwrite."
            }
            rejections.append(ImportRejection(index: index, message: message))
        }
        return ImportReport(rejections: rejections.sorted { $0.index < $1.index }, unchanged: unchanged.sorted())
    }

    /// What ``IdentityStore/insertUsers(_:uniqueEmail:)`` would refuse, by position, found by reading only (a dry
    /// run). Conflicts between users of the same batch are not looked for.
    private func wouldRefuse(_ records: [UserRecord], uniqueEmail: Bool) async throws -> [Int: StoreError] {
        var refused: [Int: StoreError] = [:]
        for (position, record) in records.enumerated() {
            if try await store.user(projectID: record.projectID, tenantID: record.tenantID, localID: record.localID) != nil {
                refused[position] = .duplicateLocalID
            } else if uniqueEmail, let email = record.email,
                      try await store.user(projectID: record.projectID, tenantID: record.tenantID, email: email) != nil {
                refused[position] = .emailExists
            } else {
                for identity in record.providers where try await store.user(
                    projectID: record.projectID, tenantID: record.tenantID, providerID: identity.providerID,
                    rawID: identity.rawID) != nil {
                    refused[position] = .identityLinked
                }
            }
        }
        return refused
    }

    private struct ImportProblem: Error {
        var message: String
        init(_ message: String) { self.message = message }
    }

    private func importedRecord(_ user: ImportUser, project: ProjectContext, hashing: ImportHashing?, now: Date,
                                rawPasswordHash: String?) throws -> UserRecord
    {
        if let tenant = user.tenantID, tenant != project.tenantID {
            throw ImportProblem("Tenant id in userInfo does not match the tenant id in request.")
        }
        guard let localID = user.localID, !localID.isEmpty else { throw ImportProblem("localId is missing") }
        guard localID.utf8.count <= 128 else { throw ImportProblem("localId is too long") }
        if let email = user.email { guard EmailAddress.isValid(email) else { throw ImportProblem("email is invalid") } }
        if let phone = user.phoneNumber {
            guard PhoneNumber.isValid(phone) else {
                throw ImportProblem("phone number format is invalid")
            }
        }
        if let photo = user.photoURL {
            guard let url = URL(string: photo), url.scheme != nil else { throw ImportProblem("photo url is invalid") }
        }
        if let claims = user.customAttributes {
            do { try CustomClaims.validate(claims) } catch AuthFailure.claimsTooLarge {
                throw ImportProblem("Custom claims provided are too large.")
            } catch AuthFailure.forbiddenClaim {
                throw ImportProblem("Custom claims provided include a reserved claim.")
            } catch {
                throw ImportProblem("Invalid custom claims provided.")
            }
        }
        switch user.incompleteIdentity {
        case .missingIDs: throw ImportProblem("federatedId or (providerId & rawId) is required")
        case .federatedIDOnly:
            throw ImportProblem(emulatorRules
                ? "((Parsing federatedId is not implemented in Auth Emulator; please specify providerId AND rawId as a workaround.))"
                : "federatedId alone is not supported: give providerId and rawId")
        case nil: break
        }
        if !user.mfa.isEmpty {
            guard user.email != nil else { throw ImportProblem("Second factor account requires email to be presented.") }
            guard user.emailVerified else { throw ImportProblem("Second factor account requires email to be verified.") }
        }
        var passwordHash = rawPasswordHash
        if let fake = user.emulatorFakeHash {
            guard emulatorRules, EmulatorFakeHash(fake) != nil else {
                throw ImportProblem("passwordHash is the Auth Emulator's fake form, taken in emulator mode only")
            }
            passwordHash = fake
        }
        if let hash = user.passwordHash {
            guard let hashing else { throw ImportProblem("hashAlgorithm is missing for a user with a passwordHash") }
            if case .bcrypt = hashing {
                let text = String(decoding: hash, as: UTF8.self)
                guard BcryptHash.isBcrypt(text) else { throw ImportProblem("passwordHash is not a bcrypt hash") }
                do { try HashBudget.check(bcrypt: text) } catch { throw ImportProblem("passwordHash: \(error)") }
            }
            passwordHash = hashing.stored(hash: hash, salt: user.salt)
        }
        var record = UserRecord(projectID: project.id, tenantID: project.tenantID, localID: localID, email: user.email.map(EmailAddress.normalized),
                                emailVerified: user.emailVerified, passwordHash: passwordHash,
                                validSince: now.epochSeconds, createdAt: user.createdAt ?? now)
        record.displayName = user.displayName
        record.photoURL = user.photoURL
        record.phoneNumber = user.phoneNumber
        record.disabled = user.disabled
        record.lastLoginAt = user.lastLoginAt
        record.customAttributes = user.customAttributes
        // The password and phone entries describe the account's own email and number, not linked identities. A
        // password entry without a hash is a password only the source project can still check.
        if passwordHash == nil, user.rawPassword == nil, user.emulatorFakeHash == nil,
           user.providers.contains(where: { $0.providerID == "password" }) {
            record.passwordAtSource = true
        }
        record.providers = user.providers.filter { $0.providerID != "password" && $0.providerID != "phone" }
        do {
            record.enrollments = try MFAEnrollmentInput.resolve(user.mfa, existing: [], now: now)
        } catch {
            throw ImportProblem("mfaInfo is invalid: each factor needs a distinct E.164 phoneInfo, at most 5")
        }
        return record
    }
}

extension UserRecord {
    /// Whether this stored account holds what importing `imported` would write: the same profile, identities,
    /// password hash, creation time (when the file gave one; otherwise each run would stamp its own) and second
    /// factors. A re-run import finds such users and skips them; one that changed since (a sign-in re-hashes the
    /// password) is not the same.
    public func holds(imported: UserRecord, comparingCreation: Bool = true) -> Bool {
        normalizedEmail == imported.normalizedEmail && emailVerified == imported.emailVerified
            && displayName == imported.displayName && photoURL == imported.photoURL && phoneNumber == imported.phoneNumber
            && disabled == imported.disabled && customAttributes == imported.customAttributes
            && providers == imported.providers && passwordHash == imported.passwordHash
            && (!comparingCreation || createdAt.epochMilliseconds == imported.createdAt.epochMilliseconds)
            && enrollments.map { [$0.phoneNumber, $0.displayName] } == imported.enrollments.map { [$0.phoneNumber, $0.displayName] }
    }
}
