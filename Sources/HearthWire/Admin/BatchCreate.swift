import Foundation

/// `projects/{id}/accounts:batchCreate` (v3 `uploadAccount`): import up to 1000 users with their password hashes.
/// Bytes fields (`signerKey`, `saltSeparator`, `passwordHash`, `salt`) are base64, web-safe or standard.
public struct BatchCreateRequest: Codable, Sendable, Equatable, IgnoresWireFields {
    public var users: [User]
    public var hashAlgorithm: String?
    public var signerKey: Data?
    public var saltSeparator: Data?
    public var rounds: Int64?
    public var memoryCost: Int64?
    public var cpuMemCost: Int64?
    public var parallelization: Int64?
    public var blockSize: Int64?
    public var dkLen: Int64?
    public var passwordHashOrder: String?
    public var allowOverwrite: Bool?
    public var sanityCheck: Bool?
    public var targetProjectId: String?

    public static let ignoredWireFields = ["delegatedProjectNumber", "argon2Parameters"]

    public init(users: [User], hashAlgorithm: String? = nil) {
        self.users = users
        self.hashAlgorithm = hashAlgorithm
    }

    public struct User: Codable, Sendable, Equatable, IgnoresWireFields {
        public var localId: String?
        public var email: String?
        public var emailVerified: Bool?
        /// Base64, or Firebase's emulator's own text form `fakeHash:salt=…:password=…` (emulator mode takes it).
        public var passwordHash: HashBytes?
        public var salt: HashBytes?
        public var displayName: String?
        public var photoUrl: String?
        public var phoneNumber: String?
        public var disabled: Bool?
        public var createdAt: Int64?
        public var lastLoginAt: Int64?
        /// The older name of `lastLoginAt`.
        public var lastSignedInAt: Int64?
        public var customAttributes: String?
        public var providerUserInfo: [Provider]
        public var mfaInfo: [MFAInfoWire]
        /// A plain password to hash on import (Firebase's input-only `rawPassword`).
        public var rawPassword: String?
        /// The tenant the user is meant for; it must be the request's.
        public var tenantId: String?

        public static let ignoredWireFields = ["passwordUpdatedAt", "validSince"]

        public init(localId: String?, email: String? = nil, passwordHash: Data? = nil, salt: Data? = nil) {
            self.localId = localId
            self.email = email
            self.passwordHash = passwordHash.map(HashBytes.init)
            self.salt = salt.map(HashBytes.init)
            providerUserInfo = []
            mfaInfo = []
        }

        /// The emulator's text hash and its salt, as sent.
        public var fakePasswordHash: (hash: String, salt: String?)? {
            guard let text = passwordHash?.text, text.hasPrefix(HashBytes.fakePrefix) else { return nil }
            return (text, salt?.text)
        }
        /// The hash's bytes (`nil` for the emulator's text form).
        public var passwordHashBytes: Data? { fakePasswordHash == nil ? passwordHash?.bytes : nil }
        public var saltBytes: Data? { fakePasswordHash == nil ? salt?.bytes : nil }
        /// When the user last signed in, in milliseconds, under either name.
        public var lastSignIn: Int64? { lastLoginAt ?? lastSignedInAt }
    }

    public typealias Provider = ProviderUserInfoInput

    /// The first bytes field that is neither base64 nor the emulator's text form, as Google names it.
    public var invalidBytes: WireDecodingError? {
        for (index, user) in users.enumerated() where user.fakePasswordHash == nil {
            for (name, field) in [("passwordHash", user.passwordHash), ("salt", user.salt)] where field != nil && field?.bytes == nil {
                return .wrongType(path: "/users/\(index)/\(name)", expected: "base64 bytes")
            }
        }
        return nil
    }
}

/// An identity a request describes (`linkProviderUserInfo`, an import's `providerUserInfo`): every field optional,
/// so a missing one is refused by name where it is used (`MISSING_PROVIDER_ID`).
public struct ProviderUserInfoInput: Codable, Sendable, Equatable {
    public var providerId: String?
    public var rawId: String?
    public var email: String?
    public var displayName: String?
    public var photoUrl: String?
    public var phoneNumber: String?
    public var screenName: String?
    public var federatedId: String?

    public init(providerId: String?, rawId: String?, email: String? = nil, displayName: String? = nil) {
        self.providerId = providerId
        self.rawId = rawId
        self.email = email
        self.displayName = displayName
    }
}

/// A bytes field (Google's base64 mapping) that also takes Firebase's emulator's `fakeHash:` text and its salt, kept
/// as sent: its own decoding because whether the text must be base64 depends on the hash it goes with.
public struct HashBytes: Codable, Sendable, Equatable {
    static let fakePrefix = "fakeHash:"
    public let text: String
    public let bytes: Data?

    public init(_ bytes: Data) {
        text = bytes.base64EncodedString()
        self.bytes = bytes
    }

    public init(from decoder: any Decoder) throws {
        text = try decoder.singleValueContainer().decode(String.self)
        bytes = WireObject.base64(text)  // checked with the hash it goes with (``BatchCreateRequest/invalidBytes``)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}

/// The answer: `error` lists the users that were not imported, by index (present and empty when all were).
public struct BatchCreateResponse: Codable, Sendable, Equatable {
    public var kind = "identitytoolkit#UploadAccountResponse"
    public var error: [Rejection]

    public struct Rejection: Codable, Sendable, Equatable {
        public var index: Int
        public var message: String

        public init(index: Int, message: String) {
            self.index = index
            self.message = message
        }
    }

    public init(error: [Rejection]) {
        self.error = error
    }
}
