import Foundation

/// `accounts:query`: one optional equality filter, a sort, a page. Firebase evaluates only the first expression.
///
/// ```swift
/// let page = try await store.queryUsers(projectID: "demo", UserQuery(sortBy: .createdAt, descending: true, limit: 50))
/// print(page.count, page.users.map(\.localID))
/// ```
public struct UserQuery: Sendable, Equatable {
    public enum SortField: String, Sendable, CaseIterable {
        case userID = "USER_ID", name = "NAME", createdAt = "CREATED_AT", lastLoginAt = "LAST_LOGIN_AT"
        case email = "USER_EMAIL"
    }

    public enum Filter: Sendable, Equatable {
        case email(String)
        case localID(String)
        case phoneNumber(String)
    }

    public static let maximumLimit = 500

    public var filter: Filter?
    /// The tenant whose users are queried; `nil`: the project's own.
    public var tenantID: String?
    public var sortBy: SortField
    public var descending: Bool
    public var limit: Int
    public var offset: Int

    public init(filter: Filter? = nil, tenantID: String? = nil, sortBy: SortField = .userID, descending: Bool = false,
                limit: Int = maximumLimit, offset: Int = 0) {
        self.filter = filter
        self.tenantID = tenantID
        self.sortBy = sortBy
        self.descending = descending
        self.limit = limit
        self.offset = offset
    }

    /// Orders two users as the query sorts them (missing values first ascending), ties broken by `localId`.
    public func precedes(_ a: UserRecord, _ b: UserRecord) -> Bool {
        func key(_ user: UserRecord) -> String {
            switch sortBy {
            case .userID: ""
            case .name: user.displayName ?? ""
            case .createdAt: String(format: "%020.0f", user.createdAt.timeIntervalSince1970 * 1000)
            case .lastLoginAt: user.lastLoginAt.map { String(format: "%020.0f", $0.timeIntervalSince1970 * 1000) } ?? ""
            case .email: user.normalizedEmail ?? ""
            }
        }
        let (ka, kb) = (key(a), key(b))
        let ascending = ka == kb ? a.localID.utf8.lexicographicallyPrecedes(b.localID.utf8)
                                 : ka.utf8.lexicographicallyPrecedes(kb.utf8)
        return descending ? !ascending : ascending
    }

    /// Whether `user` passes the filter.
    public func matches(_ user: UserRecord) -> Bool {
        switch filter {
        case nil: true
        case .email(let email): user.normalizedEmail == EmailAddress.normalized(email)
        case .localID(let id): user.localID == id
        case .phoneNumber(let phone): user.phoneNumber == phone
        }
    }
}

/// A page of `accounts:query` and how many users matched in all.
public struct UserQueryResult: Sendable, Equatable {
    public var count: Int
    public var users: [UserRecord]

    public init(count: Int, users: [UserRecord]) {
        self.count = count
        self.users = users
    }
}

extension UserQuery.SortField {
    /// The SQL expression `accounts:query` sorts by (both dialects; `json` extracts a field of `data`).
    public func sqlExpression(json: (String) -> String) -> String {
        switch self {
        case .userID: "local_id"
        case .name: json("displayName")
        case .createdAt: "created_at"
        case .lastLoginAt: json("lastLoginAt")
        case .email: "email"
        }
    }
}
