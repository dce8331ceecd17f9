import Foundation
import HearthCore
import HearthWire
import Hummingbird

/// `accounts:signUp`, `signInWithPassword`, `lookup`, `update`, `delete`, `createAuthUri` and `getProjectConfig`.
enum AccountRoutes {
    static func signUp(_ call: Call, _ request: SignUpRequest) async throws -> any ResponseGenerator {
        guard request.localId == nil else { throw APIError.business(.unexpectedParameter, "User ID") }  // admins only
        let result = try await call.services.accounts.passwords.signUp(
            in: try call.clientProject, email: request.email, password: request.password,
            displayName: request.displayName, idToken: request.idToken,
            // Production does not let a client enrol factors it never verified; the emulator does.
            secondFactors: call.configuration.isEmulator ? (request.mfaInfo ?? []).map(MFAEnrollmentInput.init) : [])
        return SignUpResponse(result)
    }

    static func signInWithPassword(_ call: Call, _ request: SignInWithPasswordRequest) async throws -> any ResponseGenerator {
        let outcome = try await call.services.accounts.passwords.signInWithPassword(
            in: try call.clientProject, email: request.email, password: request.password)
        return outcome.response(SignInWithPasswordResponse.init)
    }

    static func signInWithCustomToken(_ call: Call, _ request: SignInWithCustomTokenRequest) async throws -> any ResponseGenerator {
        let project = try call.clientProject
        let signIn = { (project: ProjectContext) in
            try await call.services.accounts.customTokens.signInWithCustomToken(
                in: project, token: request.token, tenantID: request.tenantId, allowUnsigned: call.configuration.isEmulator)
        }
        let outcome: AccountContext.SignInOutcome
        do {
            outcome = try await signIn(project)
        } catch AuthFailure.credentialMismatch {
            // A key the cached project does not know may be a service account created a moment ago: look once past
            // the cache, as the admin guard does, so every name of this route accepts it at once.
            guard let current = try await call.services.projects.reloaded(project.id), current.record != project.record else {
                throw AuthFailure.credentialMismatch
            }
            outcome = try await signIn(current.scoped(to: project.tenant))
        }
        return outcome.response { json(SignInWithCustomTokenResponse($0)) }
    }

    static func lookup(_ call: Call, _ request: LookupRequest) async throws -> any ResponseGenerator {
        let user = try await call.services.accounts.sessions.lookup(in: try call.clientProject, idToken: request.idToken)
        return LookupResponse(users: [UserInfo(user)])
    }

    static func delete(_ call: Call, _ request: DeleteAccountRequest) async throws -> any ResponseGenerator {
        try await call.services.accounts.sessions.deleteAccount(in: try call.clientProject, idToken: request.idToken)
        return DeleteAccountResponse()
    }

    static func update(_ call: Call, _ request: UpdateAccountRequest) async throws -> any ResponseGenerator {
        // Firebase's order for a client: a request with neither a token nor a code, then custom claims (admin only).
        if request.idToken == nil, request.oobCode == nil {
            throw APIError.business(.invalidRequestType, "Unsupported request parameters.")
        }
        if request.customAttributes != nil { throw APIError.business(.insufficientPermission) }
        if let code = request.oobCode {
            let project = try call.clientProject
            let (user, record, notice) = try await call.services.accounts.actionCodes.applyActionCode(
                in: project, code: code, links: call.actionLinks(project), locale: call.locale)
            if let notice { call.services.emailQueued(notice) }
            var response = UpdateAccountResponse(user)
            response.newEmail = record.newEmail
            return response
        }
        // Admin-only fields need admin credentials (`projects/{id}/accounts:update`), as Firebase answers.
        if request.localId != nil || request.emailVerified != nil || request.validSince != nil || request.phoneNumber != nil {
            throw APIError.business(.insufficientPermission)
        }
        // Disabling: the token is checked first, then the field refused, as Firebase's emulator orders it.
        if request.disableUser != nil {
            _ = try await call.services.accounts.sessions.lookup(in: try call.clientProject, idToken: request.idToken)
            throw APIError.business(.operationNotAllowed)
        }
        if let link = request.linkProviderUserInfo {
            // An identity nobody vouches for: administrators only, except in emulator mode (docs/modes.md).
            guard call.configuration.isEmulator else { throw APIError.business(.insufficientPermission) }
            let user = try await call.services.accounts.administration.linkDescribedIdentity(
                in: try call.clientProject, idToken: request.idToken, identity: ProviderUserInfo(link))
            return UpdateAccountResponse(user)
        }
        // Unlinking (`user.unlink(fromProvider:)`): a request of its own, with the user's new state.
        if let providers = request.deleteProvider, !providers.isEmpty {
            let user = try await call.services.accounts.federated.unlink(in: try call.clientProject, idToken: request.idToken,
                                                               providers: providers)
            return UpdateAccountResponse(user)
        }
        // Removing passkeys: a request of its own too.
        if let passkeys = request.deletePasskey, !passkeys.isEmpty {
            let user = try await call.services.accounts.passkeys.delete(in: try call.clientProject, idToken: request.idToken,
                                                                        credentialIDs: passkeys)
            return UpdateAccountResponse(user)
        }
        let deleted = Set(request.deleteAttribute ?? [])
        if let unsupported = deleted.subtracting([.displayName, .photoURL]).first {
            throw APIError.business(.operationNotAllowed, "deleting \(unsupported.rawValue) is not supported by this server yet")
        }
        let changes = AccountChanges(
            email: request.email, password: request.password, displayName: request.displayName,
            photoURL: request.photoUrl, deleteDisplayName: deleted.contains(.displayName),
            deletePhotoURL: deleted.contains(.photoURL))
        let project = try call.clientProject
        let result = try await call.services.accounts.updates.updateAccount(
            in: project, idToken: request.idToken, changes: changes, links: call.actionLinks(project),
            locale: call.locale)
        if let notice = result.recoveryNotice { call.services.emailQueued(notice) }
        var response = UpdateAccountResponse(result.user)
        response.newEmail = result.newEmail
        response.idToken = result.tokens?.idToken
        response.refreshToken = result.tokens?.refreshToken
        response.expiresIn = result.tokens.map { String($0.expiresIn) }
        return response
    }

    static func createAuthUri(_ call: Call, _ request: CreateAuthUriRequest) async throws -> any ResponseGenerator {
        if let providerID = request.providerId { return try await FederatedRoutes.createAuthUri(call, request, providerID: providerID) }
        let methods = try await call.services.accounts.federated.signInMethods(
            in: try call.clientProject, identifier: request.identifier, continueURI: request.continueUri)
        return CreateAuthUriResponse(
            registered: methods?.registered, allProviders: methods?.allProviders,
            signinMethods: methods?.signInMethods,
            sessionId: request.sessionId.flatMap { $0.isEmpty ? nil : $0 } ?? SecureRandom.string(length: 27, alphabet: sessionAlphabet))
    }

    private static let sessionAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")

    static func projectConfig(_ call: Call) async throws -> Response {
        let project = try call.clientProject
        return json(GetProjectConfigResponse(projectId: call.projectNumber(project),
                                             authorizedDomains: call.configuration.authorizedDomains(for: project.record)))
    }
}
