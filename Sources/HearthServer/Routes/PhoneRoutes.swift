import HearthCore
import HearthWire
import Hummingbird

/// `accounts:sendVerificationCode` and `accounts:signInWithPhoneNumber` (phone as a first factor), and the
/// emulator's SMS outbox.
enum PhoneRoutes {
    static func sendVerificationCode(_ call: Call, _ request: SendVerificationCodeRequest) async throws -> any ResponseGenerator {
        let project = try call.clientProject
        guard let number = request.phoneNumber.flatMap(call.phoneNumber) else { throw AuthFailure.invalidPhoneNumber }
        let sessionInfo = try await call.services.accounts.phone.sendPhoneCode(to: number, purpose: .signIn, in: project,
                                                                               locale: call.locale, sender: call.services.sms)
        return SendVerificationCodeResponse(sessionInfo: sessionInfo)
    }

    static func signInWithPhoneNumber(_ call: Call, _ request: SignInWithPhoneNumberRequest) async throws -> any ResponseGenerator {
        let operation = try request.operation.map { name in
            guard let operation = PhoneOperation(rawValue: name) else {
                throw AuthFailure.invalidArgument("operation must be SIGN_UP_OR_IN, REAUTH, UPDATE or LINK")
            }
            return operation
        }
        let outcome = try await call.services.accounts.phone.signInWithPhoneNumber(
            in: try call.clientProject, sessionInfo: request.sessionInfo, code: request.code,
            temporaryProof: request.temporaryProof, phoneNumber: request.phoneNumber, idToken: request.idToken,
            operation: operation)
        return outcome.wire
    }
}

extension EmulatorRoutes {
    static func verificationCodes(_ call: Call) async throws -> Response {
        guard let id = call.parameter("project"), ProjectID.isValid(id) else { throw APIError.notFound }
        var messages: [SMSMessage] = []
        // A used code leaves the list, as in Firebase's emulator; a tenant's list shows its codes, the project's its own.
        let tenant = call.parameter("tenant")
        for message in call.services.smsOutbox?.messages(projectID: id) ?? [] where message.tenantID == tenant {
            guard try await call.services.accounts.phone.isUnused(message) else { continue }
            messages.append(message)
        }
        return json(EmulatorVerificationCodes(verificationCodes: messages.map {
            .init(code: $0.code, phoneNumber: $0.phoneNumber, sessionInfo: $0.sessionInfo)
        }))
    }
}
