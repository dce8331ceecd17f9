import Crypto
import Foundation

/// Seals the store's private keys and TOTP secrets with AES-GCM: signing keys' private halves, identity providers'
/// private keys (Apple's), users' TOTP secrets, and short-lived pending secrets (a TOTP secret being enrolled, a
/// provider's tokens between the steps of a sign-in). A sealed value reads `hearth-sealed:v1:<base64>`; its record and
/// field are authenticated with it, so a sealed secret cannot be moved to another user or project.
///
/// ```swift
/// let sealer = try SecretSealer(key: Data(base64Encoded: environment["HEARTH_ENCRYPTION_KEY"]!)!)
/// let sealed = sealer.seal("-----BEGIN PRIVATE KEY-----…", context: "project:my-app:key:abc")
/// ```
public struct SecretSealer: Sendable {
    static let prefix = "hearth-sealed:v1:"
    private let key: SymmetricKey

    /// `key`: 32 bytes.
    public init(key: Data) throws {
        guard key.count == 32 else { throw SealingError.badKey }
        self.key = SymmetricKey(data: key)
    }

    public static func isSealed(_ value: String) -> Bool { value.hasPrefix(prefix) }

    public func seal(_ plaintext: String, context: String) -> String {
        guard !Self.isSealed(plaintext) else { return plaintext }
        // AES-GCM with a random nonce cannot fail for these sizes; a failure would be a broken crypto library.
        let box = try! AES.GCM.seal(Data(plaintext.utf8), using: key, authenticating: Data(context.utf8))
        return Self.prefix + box.combined!.base64EncodedString()
    }

    public func unseal(_ value: String, context: String) throws -> String {
        guard Self.isSealed(value) else { return value }  // not sealed yet (a store from before encryption)
        guard let data = Data(base64Encoded: String(value.dropFirst(Self.prefix.count))),
              let box = try? AES.GCM.SealedBox(combined: data),
              let plain = try? AES.GCM.open(box, using: key, authenticating: Data(context.utf8))
        else { throw SealingError.wrongKey }
        return String(decoding: plain, as: UTF8.self)
    }
}

public enum SealingError: Error, Equatable, CustomStringConvertible {
    /// The key is not 32 bytes.
    case badKey
    /// A sealed value does not open with this key (another key, or the value was tampered with).
    case wrongKey
    /// The store holds sealed values and no key was given.
    case noKey

    public var description: String {
        switch self {
        case .badKey: "the encryption key must be 32 bytes (base64 in HEARTH_ENCRYPTION_KEY, or a file in HEARTH_ENCRYPTION_KEY_FILE)"
        case .wrongKey: "a sealed secret in the store does not open with this encryption key: is it the key the store was sealed with?"
        case .noKey: "the store holds encrypted secrets: give the key with HEARTH_ENCRYPTION_KEY or HEARTH_ENCRYPTION_KEY_FILE"
        }
    }
}

extension ProjectRecord {
    /// Each secret field through `transform` with its context.
    func mapSecrets(_ transform: (String, String) throws -> String) rethrows -> ProjectRecord {
        var copy = self
        for index in copy.signingKeys.indices {
            let key = copy.signingKeys[index]
            copy.signingKeys[index].privateKeyPEM = try transform(key.privateKeyPEM, "project:\(id):key:\(key.kid)")
        }
        for (provider, config) in copy.settings.identityProviders ?? [:] {
            if let secret = config.privateKey {
                copy.settings.identityProviders?[provider]?.privateKey = try transform(secret, "project:\(id):idp:\(provider)")
            }
        }
        for index in copy.consoleAdmins.indices {
            if let secret = copy.consoleAdmins[index].totpSecret {
                copy.consoleAdmins[index].totpSecret = try transform(secret, "project:\(id):console:\(copy.consoleAdmins[index].email)")
            }
        }
        return copy
    }
}

extension TenantRecord {
    /// The private keys of its providers (apple.com's signing key), as the project's.
    func mapSecrets(_ transform: (String, String) throws -> String) rethrows -> TenantRecord {
        var copy = self
        for (provider, config) in identityProviders {
            if let secret = config.privateKey {
                copy.identityProviders[provider]?.privateKey = try transform(secret, "tenant:\(projectID):\(id):idp:\(provider)")
            }
        }
        return copy
    }
}

extension UserRecord {
    func mapSecrets(_ transform: (String, String) throws -> String) rethrows -> UserRecord {
        guard mfaEnrollments?.contains(where: { $0.totpSecret != nil }) == true else { return self }
        var copy = self
        for index in copy.enrollments.indices {
            if let secret = copy.enrollments[index].totpSecret {
                let context = "user:\(projectID):\(tenantID ?? ""):\(localID):totp:\(copy.enrollments[index].id)"
                copy.enrollments[index].totpSecret = try transform(secret, context)
            }
        }
        return copy
    }
}

extension PendingRecord {
    /// The payload: a TOTP secret being enrolled, a provider's tokens between the steps of a sign-in.
    func mapSecrets(_ transform: (String, String) throws -> String) rethrows -> PendingRecord {
        var copy = self
        copy.payload = try transform(payload, "pending:\(projectID):\(kind.rawValue):\(digest)")
        return copy
    }
}

/// Wraps a store so that secrets are sealed on the way in and opened on the way out (see ``SecretSealer``); other
/// calls pass through. Without a sealer, values pass as they are, and a sealed one is an error that says what to set.
/// Values from before encryption are read as they are, and sealed at their next write (`hearth store encrypt` writes
/// them all).
public final class SealingStore: IdentityStore, Sendable {
    public let base: any IdentityStore
    let sealer: SecretSealer?

    public init(_ base: any IdentityStore, sealer: SecretSealer?) {
        self.base = base
        self.sealer = sealer
    }

    func seal(_ value: String, _ context: String) -> String { sealer?.seal(value, context: context) ?? value }

    func open(_ value: String, _ context: String) throws -> String {
        guard let sealer else {
            if SecretSealer.isSealed(value) { throw SealingError.noKey }
            return value
        }
        return try sealer.unseal(value, context: context)
    }

    func sealed(_ project: ProjectRecord) -> ProjectRecord { project.mapSecrets(seal) }
    func opened(_ project: ProjectRecord) throws -> ProjectRecord { try project.mapSecrets(open) }
    func sealed(_ user: UserRecord) -> UserRecord { user.mapSecrets(seal) }
    func sealed(_ pending: PendingRecord) -> PendingRecord { pending.mapSecrets(seal) }
    func opened(_ pending: PendingRecord) throws -> PendingRecord { try pending.mapSecrets(open) }
    func opened(_ user: UserRecord) throws -> UserRecord { try user.mapSecrets(open) }

    public func project(id: String) async throws -> ProjectRecord? { try await base.project(id: id).map(opened) }
    public func createProjectIfAbsent(_ project: ProjectRecord) async throws -> ProjectRecord {
        try opened(try await base.createProjectIfAbsent(sealed(project)))
    }
    public func updateProject(_ project: ProjectRecord) async throws -> ProjectRecord {
        var stored = project
        stored.version = try await base.updateProject(sealed(project)).version
        return stored
    }
    public func user(projectID: String, tenantID: String?, localID: String) async throws -> UserRecord? {
        try await base.user(projectID: projectID, tenantID: tenantID, localID: localID).map(opened)
    }
    public func user(projectID: String, tenantID: String?, email: String) async throws -> UserRecord? {
        try await base.user(projectID: projectID, tenantID: tenantID, email: email).map(opened)
    }
    public func updateUser(_ user: UserRecord, uniqueEmail: Bool, revokeRefreshTokens: Bool) async throws -> UserRecord {
        try opened(try await base.updateUser(sealed(user), uniqueEmail: uniqueEmail, revokeRefreshTokens: revokeRefreshTokens))
    }
    public func insertUsers(_ users: [UserRecord], uniqueEmail: Bool) async throws -> [Int: StoreError] {
        try await base.insertUsers(users.map(sealed), uniqueEmail: uniqueEmail)
    }
    public func users(projectID: String, tenantID: String?, after localID: String?, limit: Int) async throws -> [UserRecord] {
        try await base.users(projectID: projectID, tenantID: tenantID, after: localID, limit: limit).map(opened)
    }
    public func user(projectID: String, tenantID: String?, phoneNumber: String) async throws -> UserRecord? {
        try await base.user(projectID: projectID, tenantID: tenantID, phoneNumber: phoneNumber).map(opened)
    }
    public func user(projectID: String, tenantID: String?, providerID: String, rawID: String) async throws -> UserRecord? {
        try await base.user(projectID: projectID, tenantID: tenantID, providerID: providerID, rawID: rawID).map(opened)
    }
    public func users(projectID: String, tenantID: String?, identityEmail: String, limit: Int) async throws -> [UserRecord] {
        try await base.users(projectID: projectID, tenantID: tenantID, identityEmail: identityEmail, limit: limit).map(opened)
    }
    public func queryUsers(projectID: String, _ query: UserQuery) async throws -> UserQueryResult {
        var result = try await base.queryUsers(projectID: projectID, query)
        result.users = try result.users.map(opened)
        return result
    }

    public func tenant(projectID: String, id: String) async throws -> TenantRecord? {
        try await base.tenant(projectID: projectID, id: id).map { try $0.mapSecrets(open) }
    }
    public func tenants(projectID: String, after id: String?, limit: Int) async throws -> [TenantRecord] {
        try await base.tenants(projectID: projectID, after: id, limit: limit).map { try $0.mapSecrets(open) }
    }
    public func insertTenant(_ tenant: TenantRecord) async throws { try await base.insertTenant(tenant.mapSecrets(seal)) }
    public func updateTenant(_ tenant: TenantRecord) async throws -> TenantRecord {
        try await base.updateTenant(tenant.mapSecrets(seal)).mapSecrets(open)
    }
    // Everything else holds no sealed field.
    public func deleteTenant(projectID: String, id: String) async throws -> Bool {
        try await base.deleteTenant(projectID: projectID, id: id)
    }
    public func migrate() async throws { try await base.migrate() }
    public func close() async throws { try await base.close() }
    public func isUnavailable(_ error: any Error) -> Bool { base.isUnavailable(error) }
    public func failureSparesReads(_ error: any Error) -> Bool { base.failureSparesReads(error) }
    public func reconnect() async { await base.reconnect() }
    public var needsDeadline: Bool { base.needsDeadline }
    public var statementCounter: StatementCounter? { base.statementCounter }
    /// New accounts go in sealed; the stamped account comes back opened.
    public func commit(_ work: UnitOfWork) async throws -> UnitOfWork.Outcome {
        var sealedWork = UnitOfWork()
        for change in work.changes {
            switch change {
            case .insertUser(let user, let uniqueEmail): sealedWork.insertUser(sealed(user), uniqueEmail: uniqueEmail)
            case .stampSignIn(let stamp): sealedWork.stampSignIn(stamp)
            case .insertRefreshToken(let token, let keep): sealedWork.insertRefreshToken(token, keepingLatest: keep)
            case .insertAuditEvent(let event): sealedWork.insertAuditEvent(event)
            case .incrementRateCounter(let key, let start, let expiresAt, let delta):
                sealedWork.incrementRateCounter(key: key, windowStart: start, expiresAt: expiresAt, by: delta)
            }
        }
        var outcome = try await base.commit(sealedWork)
        outcome.stamped = try outcome.stamped.map(opened)
        return outcome
    }
    public func rateCounters(_ windows: [RateWindow]) async throws -> [Int] { try await base.rateCounters(windows) }
    public func deleteUser(projectID: String, tenantID: String?, localID: String) async throws -> Bool {
        try await base.deleteUser(projectID: projectID, tenantID: tenantID, localID: localID)
    }
    public func deleteAllUsers(projectID: String) async throws -> Int {
        try await base.deleteAllUsers(projectID: projectID)
    }
    public func useAssertionOnce(digest: String, expiresAt: Date, now: Date) async throws -> Bool {
        try await base.useAssertionOnce(digest: digest, expiresAt: expiresAt, now: now)
    }
    public func insertPending(_ record: PendingRecord, now: Date) async throws {
        try await base.insertPending(sealed(record), now: now)
    }
    public func pending(projectID: String, digest: String, now: Date) async throws -> PendingRecord? {
        try await base.pending(projectID: projectID, digest: digest, now: now).map(opened)
    }
    public func consumePending(projectID: String, digest: String) async throws -> PendingRecord? {
        try await base.consumePending(projectID: projectID, digest: digest).map(opened)
    }
    public func recordPendingAttempt(projectID: String, digest: String) async throws -> Int? {
        try await base.recordPendingAttempt(projectID: projectID, digest: digest)
    }
    public func refreshToken(projectID: String, digest: String) async throws -> RefreshTokenRecord? {
        try await base.refreshToken(projectID: projectID, digest: digest)
    }
    public func insertActionCode(_ code: ActionCodeRecord) async throws { try await base.insertActionCode(code) }
    public func actionCode(projectID: String, digest: String) async throws -> ActionCodeRecord? {
        try await base.actionCode(projectID: projectID, digest: digest)
    }
    public func consumeActionCode(projectID: String, digest: String) async throws -> ActionCodeRecord? {
        try await base.consumeActionCode(projectID: projectID, digest: digest)
    }
    public func deleteActionCodes(projectID: String, tenantID: String?, localID: String) async throws -> Int {
        try await base.deleteActionCodes(projectID: projectID, tenantID: tenantID, localID: localID)
    }
    public func enqueueOutboxMessage(_ message: OutboxMessage) async throws {
        try await base.enqueueOutboxMessage(message)
    }
    public func outboxMessages(projectID: String) async throws -> [OutboxMessage] {
        try await base.outboxMessages(projectID: projectID)
    }
    public func claimOutboxMessages(dueAt now: Date, leaseUntil: Date, limit: Int) async throws -> [OutboxDelivery] {
        try await base.claimOutboxMessages(dueAt: now, leaseUntil: leaseUntil, limit: limit)
    }
    public func deleteOutboxMessage(id: String) async throws { try await base.deleteOutboxMessage(id: id) }
    public func rescheduleOutboxMessage(id: String, attempts: Int, nextAttemptAt: Date?, lastError: String) async throws {
        try await base.rescheduleOutboxMessage(id: id, attempts: attempts, nextAttemptAt: nextAttemptAt, lastError: lastError)
    }
    public func outboxBacklog() async throws -> (pending: Int, givenUp: Int) { try await base.outboxBacklog() }
    public func outboxStatus(projectID: String, limit: Int) async throws -> [OutboxStatus] {
        try await base.outboxStatus(projectID: projectID, limit: limit)
    }
    public func auditEvents(projectID: String, _ query: AuditQuery) async throws -> [AuditEvent] {
        try await base.auditEvents(projectID: projectID, query)
    }
    public func purge(_ housekeeping: Housekeeping) async throws -> HousekeepingReport {
        try await base.purge(housekeeping)
    }
}
