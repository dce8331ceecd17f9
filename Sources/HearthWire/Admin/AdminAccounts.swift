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

extension AdminCreateAccountRequest: IgnoresWireFields {
    public static let ignoredWireFields = ["targetProjectId", "returnSecureToken"]
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

/// Legacy v3 `downloadAccount`: `batchGet`'s query as a body.
public struct DownloadAccountRequest: Codable, Sendable, Equatable, IgnoresWireFields {
    public var targetProjectId: String?
    /// 1 to 1000 (a JSON number or a decimal string).
    public var maxResults: String?
    public var nextPageToken: String?
    public static let ignoredWireFields = ["delegatedProjectNumber"]
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

extension QueryAccountsRequest: IgnoresWireFields {
    public static let ignoredWireFields = ["targetProjectId"]
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

extension BatchDeleteRequest: IgnoresWireFields {
    public static let ignoredWireFields = ["targetProjectId"]
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

extension CreateSessionCookieRequest: IgnoresWireFields {
    public static let ignoredWireFields = ["targetProjectId"]
}

public struct CreateSessionCookieResponse: Codable, Sendable, Equatable {
    public var sessionCookie: String

    public init(sessionCookie: String) { self.sessionCookie = sessionCookie }
}
