import Foundation

/// `projects/{id}/accounts:batchCreate` (v3 `uploadAccount`): import up to 1000 users with their password hashes.
/// Bytes fields (`signerKey`, `saltSeparator`, `passwordHash`, `salt`) are base64, web-safe or standard.
public struct BatchCreateRequest: Sendable, Equatable {
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

    public struct User: Sendable, Equatable {
        public var localId: String?
        public var email: String?
        public var emailVerified: Bool?
        public var passwordHash: Data?
        public var salt: Data?
        public var displayName: String?
        public var photoUrl: String?
        public var phoneNumber: String?
        public var disabled: Bool?
        public var createdAt: Int64?
        public var lastLoginAt: Int64?
        public var customAttributes: String?
        public var providerUserInfo: [Provider]
        public var mfaInfo: [MFAInfoWire] = []
        /// A plain password to hash on import (Firebase's input-only `rawPassword`).
        public var rawPassword: String?
        /// Firebase's emulator's own hash form, `fakeHash:salt=…:password=…`, with its salt as text.
        public var fakePasswordHash: (hash: String, salt: String?)?
        /// The tenant the user is meant for; it must be the request's.
        public var tenantId: String?

        public static func == (a: Self, b: Self) -> Bool {
            a.localId == b.localId && a.email == b.email && a.passwordHash == b.passwordHash && a.salt == b.salt
                && a.rawPassword == b.rawPassword && a.fakePasswordHash?.hash == b.fakePasswordHash?.hash
                && a.providerUserInfo == b.providerUserInfo && a.mfaInfo == b.mfaInfo && a.displayName == b.displayName
                && a.phoneNumber == b.phoneNumber && a.customAttributes == b.customAttributes
        }
    }

    public struct Provider: Sendable, Equatable {
        public var providerId: String?
        public var rawId: String?
        public var email: String?
        public var displayName: String?
        public var photoUrl: String?
        public var phoneNumber: String?
        public var screenName: String?
        public var federatedId: String?
    }
}

extension BatchCreateRequest: WireDecodable {
    public init(wire body: inout WireObject) throws(WireDecodingError) {
        hashAlgorithm = try body.string("hashAlgorithm")
        signerKey = try body.bytes("signerKey")
        saltSeparator = try body.bytes("saltSeparator")
        rounds = try body.int64("rounds")
        memoryCost = try body.int64("memoryCost")
        cpuMemCost = try body.int64("cpuMemCost")
        parallelization = try body.int64("parallelization")
        blockSize = try body.int64("blockSize")
        dkLen = try body.int64("dkLen")
        passwordHashOrder = try body.string("passwordHashOrder")
        allowOverwrite = try body.bool("allowOverwrite")
        sanityCheck = try body.bool("sanityCheck")
        targetProjectId = try body.string("targetProjectId")
        body.ignore("delegatedProjectNumber", "tenantId", "argon2Parameters")
        var users: [User] = []
        for var user in try body.objects("users") ?? [] {
            let lastLogin = try user.int64("lastLoginAt")
            let lastSignedIn = try user.int64("lastSignedInAt")
            var providers: [Provider] = []
            for var provider in try user.objects("providerUserInfo") ?? [] {
                providers.append(Provider(
                    providerId: try provider.string("providerId"), rawId: try provider.string("rawId"),
                    email: try provider.string("email"), displayName: try provider.string("displayName"),
                    photoUrl: try provider.string("photoUrl"), phoneNumber: try provider.string("phoneNumber"),
                    screenName: try provider.string("screenName"), federatedId: try provider.string("federatedId")))
                user.absorb(provider)
            }
            var mfaInfo: [MFAInfoWire] = []
            for var entry in try user.objects("mfaInfo") ?? [] {
                mfaInfo.append(try MFAInfoWire.read(&entry))
                user.absorb(entry)
            }
            // Firebase's emulator's fake hashes are text, not base64 (emulator mode takes them; see the import).
            var fake: (hash: String, salt: String?)?
            var probe = user
            if let text = try probe.string("passwordHash"), text.hasPrefix("fakeHash:") {
                fake = (text, try probe.string("salt"))
                user.ignore("passwordHash", "salt")
            }
            var parsed = User(
                localId: try user.string("localId"), email: try user.string("email"),
                emailVerified: try user.bool("emailVerified"), passwordHash: fake == nil ? try user.bytes("passwordHash") : nil,
                salt: fake == nil ? try user.bytes("salt") : nil, displayName: try user.string("displayName"),
                photoUrl: try user.string("photoUrl"), phoneNumber: try user.string("phoneNumber"),
                disabled: try user.bool("disabled"), createdAt: try user.int64("createdAt"),
                lastLoginAt: lastLogin ?? lastSignedIn,
                customAttributes: try user.string("customAttributes"), providerUserInfo: providers, mfaInfo: mfaInfo)
            parsed.rawPassword = try user.string("rawPassword")
            parsed.fakePasswordHash = fake
            parsed.tenantId = try user.string("tenantId")
            users.append(parsed)
            user.ignore("passwordUpdatedAt", "validSince")
            body.absorb(user)
        }
        self.users = users
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
