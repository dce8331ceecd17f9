import Foundation
import HearthWire

/// Profile changes for ``HearthAdmin/updateUser(uid:_:)``; `nil` leaves a field alone.
public struct UserChanges: Sendable, Equatable {
    public var email: String?
    public var password: String?
    public var displayName: String?
    public var photoURL: String?
    public var phoneNumber: String?
    public var emailVerified: Bool?
    public var disabled: Bool?

    public init(email: String? = nil, password: String? = nil, displayName: String? = nil, photoURL: String? = nil,
                phoneNumber: String? = nil, emailVerified: Bool? = nil, disabled: Bool? = nil) {
        self.email = email
        self.password = password
        self.displayName = displayName
        self.photoURL = photoURL
        self.phoneNumber = phoneNumber
        self.emailVerified = emailVerified
        self.disabled = disabled
    }
}

/// User management over the admin API, as Firebase's Admin SDKs offer it.
///
/// ```swift
/// let user = try await admin.createUser(AdminCreateAccountRequest(localId: "u1", email: "a@b.c", password: "secret1"))
/// try await admin.setCustomUserClaims(uid: "u1", claims: ["role": .string("admin")])
/// let page = try await admin.listUsers(maxResults: 100)
/// ```
extension HearthAdmin {
    public func getUser(uid: String) async throws -> UserInfo {
        try await lookupOne(LookupRequest(localId: [uid]))
    }

    public func getUser(email: String) async throws -> UserInfo {
        try await lookupOne(LookupRequest(email: [email]))
    }

    public func getUser(phoneNumber: String) async throws -> UserInfo {
        try await lookupOne(LookupRequest(phoneNumber: [phoneNumber]))
    }

    /// Creates a user (`localId` chooses the uid) and returns it as stored.
    public func createUser(_ user: AdminCreateAccountRequest) async throws -> UserInfo {
        let created = try await call(Endpoints.adminCreate, user)
        return try await getUser(uid: created.localId)
    }

    public func updateUser(uid: String, _ changes: UserChanges) async throws -> UserInfo {
        var request = UpdateAccountRequest(idToken: nil, email: changes.email, password: changes.password,
                                           displayName: changes.displayName, photoUrl: changes.photoURL)
        request.returnSecureToken = nil
        request.localId = uid
        request.phoneNumber = changes.phoneNumber
        request.emailVerified = changes.emailVerified
        request.disableUser = changes.disabled
        _ = try await call(Endpoints.adminUpdate, request)
        return try await getUser(uid: uid)
    }

    /// Replaces the user's custom claims (`nil` or empty removes them); they appear in the next ID token.
    public func setCustomUserClaims(uid: String, claims: [String: JSONValue]?) async throws {
        var request = UpdateAccountRequest(idToken: nil, returnSecureToken: nil)
        request.localId = uid
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        request.customAttributes = String(decoding: try encoder.encode(claims ?? [:]), as: UTF8.self)
        _ = try await call(Endpoints.adminUpdate, request)
    }

    /// Ends every session of the user: refresh tokens stop working and `checkRevoked` refuses older ID tokens.
    public func revokeRefreshTokens(uid: String) async throws {
        var request = UpdateAccountRequest(idToken: nil, returnSecureToken: nil)
        request.localId = uid
        request.validSince = Int64(now().timeIntervalSince1970)
        _ = try await call(Endpoints.adminUpdate, request)
    }

    public func deleteUser(uid: String) async throws {
        _ = try await call(Endpoints.adminDelete, DeleteAccountRequest(localId: uid))
    }

    /// One page of users in uid order; pass the returned token to get the next (`nil` at the end).
    public func listUsers(maxResults: Int = 1000, pageToken: String? = nil) async throws
        -> (users: [UserInfo], nextPageToken: String?)
    {
        var query = "?maxResults=\(maxResults)"
        if let pageToken {
            query += "&nextPageToken=" + (pageToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        }
        let page = try await call(Endpoints.batchGet, nil, query: query)
        return (page.users ?? [], page.nextPageToken)
    }

    /// A password-reset, email-verification or sign-in link for `email`, returned instead of sent.
    public func generateEmailActionLink(_ type: SendOobCodeRequest.RequestType, email: String,
                                        continueURL: String? = nil) async throws -> String {
        var request = SendOobCodeRequest(requestType: type, email: email, continueUrl: continueURL)
        request.returnOobLink = true
        let reply = try await call(Endpoints.adminSendOobCode, request)
        guard let link = reply.oobLink else { throw HearthAdminError.transport("no oobLink in the answer") }
        return link
    }

    private func lookupOne(_ request: LookupRequest) async throws -> UserInfo {
        let reply = try await call(Endpoints.adminLookup, request)
        guard let user = reply.users?.first else {
            throw HearthAdminError.server(status: 400, code: "USER_NOT_FOUND", message: "USER_NOT_FOUND")
        }
        return user
    }
}
