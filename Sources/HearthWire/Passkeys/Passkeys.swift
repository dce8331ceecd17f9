/// `v2/accounts/passkeyEnrollment:start`: options for a new passkey of the signed-in user.
public struct StartPasskeyEnrollmentRequest: Codable, Sendable, Equatable {
    public var idToken: String?
    public var tenantId: String?
    public init(idToken: String?) { self.idToken = idToken }
}

public struct StartPasskeyEnrollmentResponse: Codable, Sendable, Equatable {
    /// WebAuthn's `PublicKeyCredentialCreationOptions`, JSON-encoded (byte fields base64).
    public var credentialCreationOptions: CreationOptions

    public struct CreationOptions: Codable, Sendable, Equatable {
        public var rp: RelyingParty
        public var user: User
        public var challenge: String
        public var pubKeyCredParams: [CredentialParameter]
        public var timeout: Int
        public var attestation: String
        /// Production only (the emulator's mock has neither): the user's passkeys, and what the authenticator must do.
        public var excludeCredentials: [CredentialDescriptor]?
        public var authenticatorSelection: AuthenticatorSelection?
    }

    public struct CredentialDescriptor: Codable, Sendable, Equatable {
        public var type = "public-key"
        public var id: String
    }

    /// A discoverable credential (a passkey), with user verification as the project requires.
    public struct AuthenticatorSelection: Codable, Sendable, Equatable {
        public var residentKey = "required"
        public var requireResidentKey = true
        public var userVerification: String
    }

    public struct RelyingParty: Codable, Sendable, Equatable {
        public var name: String
        public var id: String
    }

    public struct User: Codable, Sendable, Equatable {
        public var id: String
        public var name: String
        public var displayName: String
    }

    public struct CredentialParameter: Codable, Sendable, Equatable {
        public var type = "public-key"
        /// A COSE algorithm: -7 is ES256, -257 RS256.
        public var alg: Int
    }

    /// The emulator's options (ES256 and RS256, nothing else); `verified` adds what production asks of the
    /// authenticator, and EdDSA.
    public init(relyingParty: String, userID: String, userName: String, userDisplayName: String, challenge: String,
                verified: (exclude: [String], userVerification: String)? = nil) {
        var algorithms = [CredentialParameter(alg: -7), CredentialParameter(alg: -257)]
        if verified != nil { algorithms.insert(CredentialParameter(alg: -8), at: 1) }
        credentialCreationOptions = CreationOptions(
            rp: RelyingParty(name: relyingParty, id: relyingParty),
            user: User(id: userID, name: userName, displayName: userDisplayName), challenge: challenge,
            pubKeyCredParams: algorithms, timeout: 60000, attestation: "none",
            excludeCredentials: verified.map { $0.exclude.map { CredentialDescriptor(id: $0) } },
            authenticatorSelection: verified.map { AuthenticatorSelection(userVerification: $0.userVerification) })
    }
}

/// What the authenticator answered, as WebAuthn's `PublicKeyCredential` JSON (byte fields base64url).
public struct AuthenticatorResponse: Codable, Sendable, Equatable {
    public var id: String?
    public var rawId: String?
    public var type: String?
    public var authenticatorAttachment: String?
    public var response: Response?

    public struct Response: Codable, Sendable, Equatable {
        public var clientDataJSON: String?
        public var attestationObject: String?
        public var authenticatorData: String?
        public var signature: String?
        public var userHandle: String?
        public var transports: [String]?

        public init(clientDataJSON: String? = nil, attestationObject: String? = nil, authenticatorData: String? = nil,
                    signature: String? = nil, userHandle: String? = nil, transports: [String]? = nil) {
            self.clientDataJSON = clientDataJSON
            self.attestationObject = attestationObject
            self.authenticatorData = authenticatorData
            self.signature = signature
            self.userHandle = userHandle
            self.transports = transports
        }
    }

    public init(id: String?) { self.id = id }
}

extension AuthenticatorResponse: IgnoresWireFields {
    public static let ignoredWireFields = ["clientExtensionResults"]
}

/// `v2/accounts/passkeyEnrollment:finalize`.
public struct FinalizePasskeyEnrollmentRequest: Codable, Sendable, Equatable {
    public var idToken: String?
    public var authenticatorRegistrationResponse: AuthenticatorResponse?
    /// The passkey's name; `displayName` when absent, then "Unnamed Passkey".
    public var name: String?
    public var displayName: String?
    public var tenantId: String?

    public init(idToken: String?, credentialID: String?, name: String? = nil) {
        self.idToken = idToken
        authenticatorRegistrationResponse = AuthenticatorResponse(id: credentialID)
        self.name = name
    }
}

/// What both finalize calls answer: the account and its new passkey session.
public struct PasskeyTokensResponse: Codable, Sendable, Equatable {
    public var localId: String
    public var idToken: String
    public var refreshToken: String
    public init(localId: String, idToken: String, refreshToken: String) {
        self.localId = localId
        self.idToken = idToken
        self.refreshToken = refreshToken
    }
}

/// `v2/accounts/passkeySignIn:start`: a challenge for any passkey of the project (discoverable credentials).
public struct StartPasskeySignInRequest: Codable, Sendable, Equatable {
    public var tenantId: String?
    public init() {}
}

public struct StartPasskeySignInResponse: Codable, Sendable, Equatable {
    public var credentialRequestOptions: RequestOptions

    public struct RequestOptions: Codable, Sendable, Equatable {
        public var challenge: String
        public var rpId: String
        public var userVerification: String
    }

    public init(challenge: String, relyingParty: String, userVerification: String = "required") {
        credentialRequestOptions = RequestOptions(challenge: challenge, rpId: relyingParty, userVerification: userVerification)
    }
}

/// `v2/accounts/passkeySignIn:finalize`.
public struct FinalizePasskeySignInRequest: Codable, Sendable, Equatable {
    public var authenticatorAuthenticationResponse: AuthenticatorResponse?
    public var tenantId: String?
    public init(credentialID: String?) { authenticatorAuthenticationResponse = AuthenticatorResponse(id: credentialID) }
}

/// One passkey of a user (`passkeyInfo` of a lookup).
public struct PasskeyInfoWire: Codable, Sendable, Equatable {
    public var credentialId: String
    public var name: String?
    public init(credentialId: String, name: String?) {
        self.credentialId = credentialId
        self.name = name
    }
}

/// `v2/projects/{project}/passkeyConfig` (and a tenant's): the relying party of the passkeys. `requireUserVerification`
/// is Hearth's own (true when absent).
public struct PasskeyConfigResource: Codable, Sendable, Equatable {
    public static let paths = ["rpId", "expectedOrigins", "requireUserVerification"]
    public var name: String?
    public var rpId: String?
    public var expectedOrigins: [String]?
    public var requireUserVerification: Bool?

    public init(name: String?, rpId: String?, expectedOrigins: [String]?, requireUserVerification: Bool?) {
        self.name = name
        self.rpId = rpId
        self.expectedOrigins = expectedOrigins
        self.requireUserVerification = requireUserVerification
    }

    /// The paths the body sets (what a patch without `updateMask` changes).
    public var presentPaths: [String] {
        [rpId.map { _ in "rpId" }, expectedOrigins.map { _ in "expectedOrigins" },
         requireUserVerification.map { _ in "requireUserVerification" }].compactMap { $0 }
    }
}

