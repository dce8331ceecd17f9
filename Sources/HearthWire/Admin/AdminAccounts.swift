/// Admin `projects/{id}/accounts` (create with an optional caller-chosen `localId`; Admin SDKs' `createUser`).
public struct AdminCreateAccountRequest: Codable, Sendable, Equatable {
    public var localId: String?
    public var email: String?
    public var password: String?
    public var emailVerified: Bool?
    public var displayName: String?
    public var photoUrl: String?
    public var phoneNumber: String?
    public var disabled: Bool?
    public var mfaInfo: [MFAInfoWire]?
    /// Sent by some callers of `accounts:signUp` with a bearer; with `localId` it is refused, as Firebase does.
    public var idToken: String?

    public init(localId: String? = nil, email: String? = nil, password: String? = nil) {
        self.localId = localId
        self.email = email
        self.password = password
    }
}

extension AdminCreateAccountRequest: WireDecodable {
    public init(wire body: inout WireObject) throws(WireDecodingError) {
        localId = try body.string("localId")
        idToken = try body.string("idToken")
        email = try body.string("email")
        password = try body.string("password")
        emailVerified = try body.bool("emailVerified")
        displayName = try body.string("displayName")
        photoUrl = try body.string("photoUrl")
        phoneNumber = try body.string("phoneNumber")
        disabled = try body.bool("disabled")
        if let entries = try body.objects("mfaInfo") {
            var parsed: [MFAInfoWire] = []
            for var entry in entries {
                parsed.append(try MFAInfoWire.read(&entry))
                body.absorb(entry)
            }
            mfaInfo = parsed
        }
        body.ignore("tenantId", "targetProjectId", "returnSecureToken")
    }
}

/// The short answer of an admin create: no tokens (the Admin SDK looks the user up next).
public struct AdminCreateAccountResponse: Codable, Sendable, Equatable {
    public var kind = "identitytoolkit#SignupNewUserResponse"
    public var localId: String
    public var email: String?
    public var displayName: String?

    public init(localId: String, email: String?, displayName: String?) {
        self.localId = localId
        self.email = email
        self.displayName = displayName
    }
}

/// `GET projects/{id}/accounts:batchGet?maxResults=&nextPageToken=` (listUsers, export): users in `localId` order.
public struct BatchGetResponse: Codable, Sendable, Equatable {
    public var kind = "identitytoolkit#DownloadAccountResponse"
    public var users: [UserInfo]?
    /// Present while more users follow.
    public var nextPageToken: String?

    public init(users: [UserInfo]?, nextPageToken: String?) {
        self.users = users
        self.nextPageToken = nextPageToken
    }
}

/// `projects/{id}/accounts:query` (and `projects/{id}:queryAccounts`).
public struct QueryAccountsRequest: Codable, Sendable, Equatable {
    public var returnUserInfo: Bool?
    public var limit: Int64?
    public var offset: Int64?
    public var sortBy: String?
    public var order: String?
    public var expression: [Expression]

    public struct Expression: Codable, Sendable, Equatable {
        public var email: String?
        public var userId: String?
        public var phoneNumber: String?
    }
}

extension QueryAccountsRequest: WireDecodable {
    public init(wire body: inout WireObject) throws(WireDecodingError) {
        returnUserInfo = try body.bool("returnUserInfo")
        limit = try body.int64("limit")
        offset = try body.int64("offset")
        sortBy = try body.string("sortBy")
        order = try body.string("order")
        var expressions: [Expression] = []
        for var item in try body.objects("expression") ?? [] {
            expressions.append(Expression(email: try item.string("email"), userId: try item.string("userId"),
                                          phoneNumber: try item.string("phoneNumber")))
            body.absorb(item)
        }
        expression = expressions
        body.ignore("tenantId", "targetProjectId")
    }
}

public struct QueryAccountsResponse: Codable, Sendable, Equatable {
    /// Google's int64 mapping: a decimal string.
    public var recordsCount: String
    public var userInfo: [UserInfo]?

    public init(recordsCount: Int, userInfo: [UserInfo]?) {
        self.recordsCount = String(recordsCount)
        self.userInfo = userInfo
    }
}

/// `projects/{id}/accounts:batchDelete`: at most 1000 ids; without `force`, enabled accounts are refused.
public struct BatchDeleteRequest: Codable, Sendable, Equatable {
    public var localIds: [String]
    public var force: Bool?
}

extension BatchDeleteRequest: WireDecodable {
    public init(wire body: inout WireObject) throws(WireDecodingError) {
        localIds = try body.strings("localIds") ?? []
        force = try body.bool("force")
        body.ignore("tenantId", "targetProjectId")
    }
}

/// Per-user refusals; `{}` when every account was deleted (or did not exist).
public struct BatchDeleteResponse: Codable, Sendable, Equatable {
    public var errors: [Failure]?

    public struct Failure: Codable, Sendable, Equatable {
        public var index: Int
        public var localId: String
        public var message: String

        public init(index: Int, localId: String, message: String) {
            self.index = index
            self.localId = localId
            self.message = message
        }
    }

    public init(errors: [Failure]?) { self.errors = errors }
}

/// `projects/{id}:createSessionCookie`.
public struct CreateSessionCookieRequest: Codable, Sendable, Equatable {
    public var idToken: String?
    /// Seconds, 300 to 1 209 600 (a JSON number or a decimal string).
    public var validDuration: Int64?

    public init(idToken: String?, validDuration: Int64?) {
        self.idToken = idToken
        self.validDuration = validDuration
    }
}

extension CreateSessionCookieRequest: WireDecodable {
    public init(wire body: inout WireObject) throws(WireDecodingError) {
        idToken = try body.string("idToken")
        validDuration = try body.int64("validDuration")
        body.ignore("tenantId", "targetProjectId")
    }
}

public struct CreateSessionCookieResponse: Codable, Sendable, Equatable {
    public var sessionCookie: String

    public init(sessionCookie: String) { self.sessionCookie = sessionCookie }
}
