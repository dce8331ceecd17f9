import Foundation

/// The options a client hands the authenticator to create a passkey (`passkeyEnrollment:start`).
public struct PasskeyCreationOptions: Sendable, Equatable {
    public var relyingPartyID: String
    /// The WebAuthn user handle: the account's local id.
    public var userHandle: String
    public var userName: String
    public var userDisplayName: String
    public var challenge: String
    /// The user's credentials already enrolled, so an authenticator does not make a second one.
    public var excludeCredentials: [String] = []
    public var userVerification = "required"
}

/// Passkeys (WebAuthn credentials): enrollment by a signed-in user, sign-in by credential, removal through
/// `accounts:update` (`deletePasskey`).
///
/// Production verifies every ceremony (``WebAuthn``) against the project's (or tenant's) `passkeyConfig`: each
/// challenge is random, stored by digest for five minutes, bound to its ceremony (and, for an enrollment, to its
/// user) and used once — also when the response fails. Emulator mode answers as Firebase's emulator does: a mock
/// that records the credential id it is given and checks no signature and no challenge.
public struct Passkeys: UseCase {
    public let context: AccountContext
    /// The store concerns this use case reads and writes itself (the shared pipeline, `completeSignIn` and
    /// `create`, takes its own).
    var store: any UserStore & SecretStore { context.store }
    public init(context: AccountContext) { self.context = context }

    /// The emulator's relying party.
    static let emulatorRelyingParty = "localhost"

    /// How long a ceremony's challenge stays usable (the options give the authenticator one minute).
    static let challengeLifetime: TimeInterval = 300
    /// The most passkeys one account holds: each is a row of its record and an entry of every lookup's answer.
    public static let maximumPerAccount = 20
    /// The longest passkey name, in characters: names are shown in lists (the console, an app's settings).
    public static let maximumNameLength = 64

    /// A passkey's name as given, or the reason it is refused: too long, or holding control or formatting characters
    /// (a newline, a right-to-left override that disguises a name in a list).
    static func checkedName(_ name: String) throws -> String {
        guard name.count <= maximumNameLength else {
            throw AuthFailure.invalidArgument("A passkey name is at most \(maximumNameLength) characters")
        }
        guard !name.unicodeScalars.contains(where: { [.control, .format].contains($0.properties.generalCategory) }) else {
            throw AuthFailure.invalidArgument("A passkey name may not hold control or formatting characters")
        }
        return name
    }

    /// `passkeyEnrollment:start`: options for the signed-in user's new credential.
    public func startEnrollment(in project: ProjectContext, idToken: String?) async throws -> PasskeyCreationOptions {
        let (user, _) = try await authenticate(idToken, in: project)
        guard (user.passkeys ?? []).count < Self.maximumPerAccount else {
            throw AuthFailure.invalidArgument("An account holds at most \(Self.maximumPerAccount) passkeys; remove one first")
        }
        let userHandle = Data(user.localID.utf8).base64EncodedString()
        let names = (user.email ?? "user@example.com", user.displayName ?? "User")
        if emulatorRules {
            return PasskeyCreationOptions(relyingPartyID: Self.emulatorRelyingParty, userHandle: userHandle,
                                          userName: names.0, userDisplayName: names.1, challenge: SecureRandom.token())
        }
        let party = try relyingParty(of: project)
        let challenge = try await issueChallenge(.create, localID: user.localID, in: project)
        return PasskeyCreationOptions(relyingPartyID: party.id, userHandle: userHandle, userName: names.0,
                                      userDisplayName: names.1, challenge: challenge,
                                      excludeCredentials: (user.passkeys ?? []).map(\.credentialID),
                                      userVerification: party.requireUserVerification ? "required" : "preferred")
    }

    /// `passkeyEnrollment:finalize`: the credential is added to the signed-in user (named `name`, else
    /// `displayName`, else "Unnamed Passkey"), and a passkey session begins. A credential id another account holds
    /// is `CREDENTIAL_ALREADY_IN_USE`. Production first verifies the registration (``WebAuthn/verifyRegistration``).
    public func finalizeEnrollment(in project: ProjectContext, idToken: String?, response: PasskeyResponse?,
                                   name: String?, displayName: String?) async throws -> SignInResult {
        guard let idToken, !idToken.isEmpty else { throw AuthFailure.missingIDToken }
        guard let response else { throw AuthFailure.missingAuthenticatorResponse }
        let (stored, claims) = try await authenticate(idToken, in: project)
        try requireRecentLogin(claims, for: .linkCredential)
        guard let given = response.credentialID, !given.isEmpty, given.utf8.count <= 1400 else {
            throw AuthFailure.invalidCredentialID
        }
        let label = try Self.checkedName([name, displayName].compactMap { $0 }.first { !$0.isEmpty } ?? "Unnamed Passkey")
        let now = clock.now()
        var credential = PasskeyCredential(credentialID: given, name: label, createdAt: now)
        if !emulatorRules {
            let party = try relyingParty(of: project)
            let client = try verifying { try ClientData(try bytes(response.clientDataJSON, "clientDataJSON")) }
            try await useChallenge(client.challenge, .create, localID: stored.localID, in: project, now: now)
            let attestation = try bytes(response.attestationObject, "attestationObject")
            let registered = try verifying {
                try WebAuthn.verifyRegistration(client, attestationObject: attestation, challenge: client.challenge, party: party)
            }
            guard let id = Self.credentialBytes(given), id == Data(registered.id) else {
                throw AuthFailure.invalidAuthenticatorResponse(WebAuthnError.credentialMismatch.description)
            }
            credential.credentialID = Base64URL.encode(id)
            credential.publicKey = Base64URL.encode(Data(registered.publicKey.encoded))
            credential.signCount = registered.signCount
            credential.aaguid = registered.aaguid.hexString
            credential.backedUp = registered.flags.contains(.backedUp)
        }
        let user: UserRecord
        do {
            user = try await modifyUser(stored, in: project, session: claims) { user in
                if (user.passkeys ?? []).contains(where: { $0.credentialID == credential.credentialID }) {
                    throw AuthFailure.credentialAlreadyInUse
                }
                guard (user.passkeys ?? []).count < Self.maximumPerAccount else {
                    throw AuthFailure.invalidArgument("An account holds at most \(Self.maximumPerAccount) passkeys; remove one first")
                }
                user.passkeys = (user.passkeys ?? []) + [credential]
            }
        } catch AuthFailure.federatedUserIDAlreadyLinked {
            throw AuthFailure.credentialAlreadyInUse  // held by another account: the store's identity index said so
        }
        return try await completeSignIn(user, provider: PasskeyCredential.providerID, in: project, now: now,
                                        .reissued(secondFactor: nil, secondFactorID: nil)).signedIn()
    }

    /// `accounts:update` with `deletePasskey`: the named credentials leave the signed-in user (ids it does not hold
    /// are ignored, as Firebase's emulator ignores them). Like unlinking a provider, it needs a recent sign-in: a
    /// stolen session must not remove the owner's way back in.
    public func delete(in project: ProjectContext, idToken: String?, credentialIDs: [String]) async throws -> UserRecord {
        let (stored, claims) = try await authenticate(idToken, in: project)
        try requireRecentLogin(claims, for: .unlinkProvider)
        // Production stores ids as base64url; Apple's platforms send them in standard base64.
        let named = Set(credentialIDs + (emulatorRules ? [] : credentialIDs.compactMap { Self.credentialBytes($0).map(Base64URL.encode) }))
        return try await modifyUser(stored, in: project, session: claims) { user in
            let kept = (user.passkeys ?? []).filter { !named.contains($0.credentialID) }
            user.passkeys = kept.isEmpty ? nil : kept
        }
    }

    /// `passkeySignIn:start`: a challenge for any of the project's passkeys (discoverable credentials).
    public func startSignIn(in project: ProjectContext) async throws -> (challenge: String, party: RelyingParty) {
        if emulatorRules { return (SecureRandom.token(), RelyingParty(id: Self.emulatorRelyingParty, origins: [])) }
        let party = try relyingParty(of: project)
        return (try await issueChallenge(.get, localID: nil, in: project), party)
    }

    /// `passkeySignIn:finalize`: the account holding the credential signs in with provider `passkey`. Production
    /// verifies the assertion with the credential's stored key, and stores its new counter.
    public func finalizeSignIn(in project: ProjectContext, response: PasskeyResponse?) async throws -> SignInOutcome {
        guard let response else { throw AuthFailure.missingAuthenticatorResponse }
        guard let given = response.credentialID, !given.isEmpty, given.utf8.count <= 1400 else {
            throw AuthFailure.invalidCredentialID
        }
        let now = clock.now()
        guard emulatorRules else { return try await verifiedSignIn(response, credentialID: given, in: project, now: now) }
        guard let user = try await store.user(projectID: project.id, tenantID: project.tenantID,
                                              providerID: PasskeyCredential.providerID, rawID: given)
        else { throw AuthFailure.passkeyCredentialNotFound }
        guard !user.disabled else { throw AuthFailure.userDisabled }
        let stamp = SignInStamp(projectID: project.id, tenantID: user.tenantID, localID: user.localID, at: now, signedIn: true)
        return try await completeSignIn(user, provider: PasskeyCredential.providerID, in: project, now: now,
                                        .firstFactor(stamp: stamp))
    }

    private func verifiedSignIn(_ response: PasskeyResponse, credentialID given: String, in project: ProjectContext,
                                now: Date) async throws -> SignInOutcome {
        let party = try relyingParty(of: project)
        let client = try verifying { try ClientData(try bytes(response.clientDataJSON, "clientDataJSON")) }
        try await useChallenge(client.challenge, .get, localID: nil, in: project, now: now)
        guard let id = Self.credentialBytes(given) else { throw AuthFailure.invalidCredentialID }
        let credentialID = Base64URL.encode(id)
        guard let stored = try await store.user(projectID: project.id, tenantID: project.tenantID,
                                                providerID: PasskeyCredential.providerID, rawID: credentialID),
              let passkey = stored.passkeys?.first(where: { $0.credentialID == credentialID }),
              let encodedKey = passkey.publicKey.flatMap(Base64URL.decode)
        else { throw AuthFailure.passkeyCredentialNotFound }
        // A discoverable credential names its account: it must be the one that holds the credential.
        if let handle = response.userHandle, !handle.isEmpty {
            guard Self.credentialBytes(handle) == Data(stored.localID.utf8) else {
                throw AuthFailure.invalidAuthenticatorResponse(WebAuthnError.userHandleMismatch.description)
            }
        }
        let authenticatorData = try bytes(response.authenticatorData, "authenticatorData")
        let signature = try bytes(response.signature, "signature")
        let count = try verifying {
            try WebAuthn.verifyAssertion(client, authenticatorData: authenticatorData, signature: signature,
                                         challenge: client.challenge, party: party, key: try COSEKey(encoded: Array(encodedKey)),
                                         storedCount: passkey.signCount ?? 0)
        }
        guard !stored.disabled else { throw AuthFailure.userDisabled }
        // The counter is written by the sign-in's own stamp, compare-and-set: of two assertions racing with one
        // counter value, one signs in (SignInStamp.passkeyCounter).
        var stamp = SignInStamp(projectID: project.id, tenantID: stored.tenantID, localID: stored.localID, at: now, signedIn: true)
        stamp.passkeyCounter = .init(credentialID: credentialID, count: count)
        let user = stored
        return try await completeSignIn(user, provider: PasskeyCredential.providerID, in: project, now: now,
                                        .firstFactor(stamp: stamp))
    }

    /// A ceremony's kind, as its challenge records it.
    enum Ceremony: String, Codable { case create, get }

    struct StoredChallenge: Codable {
        var ceremony: Ceremony
        var localID: String?
    }

    /// A new random challenge (32 bytes, standard base64 as Firebase answers it), stored by digest.
    private func issueChallenge(_ ceremony: Ceremony, localID: String?, in project: ProjectContext) async throws -> String {
        let bytes = SecureRandom.bytes(32)
        let now = clock.now()
        try await store.insertPending(PendingRecord(
            digest: pendingKey(Base64URL.encode(Data(bytes)), in: project), projectID: project.id, kind: .passkeyChallenge,
            payload: try RecordCoding.encode(StoredChallenge(ceremony: ceremony, localID: localID)),
            expiresAt: now + Self.challengeLifetime), now: now)
        return Data(bytes).base64EncodedString()
    }

    /// Takes the challenge the client data names: it must be this project's (or tenant's), unexpired, of this
    /// ceremony and, for an enrollment, this user's. Taken before the response is checked, so a failed response
    /// cannot be retried with it either.
    private func useChallenge(_ challenge: [UInt8], _ ceremony: Ceremony, localID: String?, in project: ProjectContext,
                              now: Date) async throws {
        let refused = AuthFailure.invalidAuthenticatorResponse(
            "The challenge is unknown, used or expired: start the ceremony again.")
        guard let record = try await store.consumePending(projectID: project.id,
                                                          digest: pendingKey(Base64URL.encode(Data(challenge)), in: project)),
              record.kind == .passkeyChallenge, record.expiresAt > now,
              let stored = try? RecordCoding.decode(StoredChallenge.self, from: record.payload)
        else { throw refused }
        guard stored.ceremony == ceremony, stored.localID == localID else { throw refused }
    }

    /// The relying party of the project or tenant; production refuses passkeys until there is one.
    func relyingParty(of project: ProjectContext) throws -> RelyingParty {
        guard let config = project.settings.passkeys else { throw AuthFailure.passkeysNotConfigured }
        return config.relyingParty
    }

    /// A credential id or user handle as sent: base64url (browsers) or standard base64 (Apple's platforms).
    static func credentialBytes(_ text: String) -> Data? {
        Base64URL.decode(text) ?? Data(base64Encoded: text)
    }

    private func bytes(_ text: String?, _ field: String) throws -> [UInt8] {
        guard let text, text.utf8.count <= 256 << 10, let data = Self.credentialBytes(text), !data.isEmpty else {
            throw AuthFailure.invalidAuthenticatorResponse("Malformed response: \(field) is missing or not base64.")
        }
        return Array(data)
    }

    private func verifying<T>(_ work: () throws -> T) throws -> T {
        do { return try work() } catch let error as WebAuthnError {
            throw AuthFailure.invalidAuthenticatorResponse(error.description)
        }
    }
}

/// What a client sent back from the authenticator (WebAuthn's `PublicKeyCredential` JSON), its byte fields still
/// as text.
public struct PasskeyResponse: Sendable {
    public var credentialID: String?
    public var clientDataJSON: String?
    public var attestationObject: String?
    public var authenticatorData: String?
    public var signature: String?
    public var userHandle: String?

    public init(credentialID: String?, clientDataJSON: String? = nil, attestationObject: String? = nil,
                authenticatorData: String? = nil, signature: String? = nil, userHandle: String? = nil) {
        self.credentialID = credentialID
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
    }
}
