/// `accounts:delete` (v3 `deleteAccount`) with the signed-in user's `idToken`.
public struct DeleteAccountRequest: Codable, Sendable, Equatable {
    public var idToken: String?
    public var tenantId: String?
    /// Admin deletes (`projects/{id}/accounts:delete`).
    public var localId: String?

    public init(idToken: String?, tenantId: String? = nil) {
        self.idToken = idToken
        self.tenantId = tenantId
    }

    /// An admin delete.
    public init(localId: String) { self.localId = localId }
}

extension DeleteAccountRequest: IgnoresWireFields {
    public static let ignoredWireFields = ["delegatedProjectNumber", "targetProjectId"]
}

public struct DeleteAccountResponse: Codable, Sendable, Equatable {
    public var kind = "identitytoolkit#DeleteAccountResponse"
    public init() {}
}
