import AsyncHTTPClient
import Foundation
import HearthCore
import NIOCore
import NIOFoundationCompat

/// Calls a project's blocking functions (`blockingFunctions.triggers`) as Identity Platform does, from the account
/// pipeline every creation and sign-in passes: `beforeCreate` before a new account is stored (an administrator's or an
/// import's only when `blockingFunctionsOnAdminCreate` is on; Firebase never calls it for them), `beforeSignIn` before
/// a sign-in's tokens are issued, `beforeSendEmail` and `beforeSendSms` before an action email or a code is sent.
///
/// The request is Firebase's (``BlockingFunctionToken``); the answer's fields are applied (``BlockingFunctionReply``).
/// A function that refuses, fails, is slow (7 s, Firebase's limit) or answers nonsense refuses the call with
/// `BLOCKING_FUNCTION_ERROR_RESPONSE`, before anything is stored: it fails closed.
///
/// ```swift
/// accounts.hooks.append(BlockingFunctionCaller(issuerPrefix: "https://securetoken.google.com/", clock: SystemClock()))
/// ```
public struct BlockingFunctionCaller: AccountHook {
    let http: HTTPClient
    let issuerPrefix: String
    let clock: any HearthClock
    let timeout: TimeAmount

    public init(issuerPrefix: String, clock: any HearthClock, httpClient: HTTPClient = .toAppServices,
                timeout: TimeAmount = .seconds(7)) {
        http = httpClient
        self.issuerPrefix = issuerPrefix
        self.clock = clock
        self.timeout = timeout
    }

    public func beforeCreate(_ user: inout UserRecord, origin: AccountOrigin, event: AccountEvent,
                             in project: ProjectContext) async throws {
        let byAdministrator = origin == .admin || origin == .import
        guard !byAdministrator || project.settings.blockingFunctionsOnAdminCreate == true else { return }
        guard let reply = try await call("beforeCreate", in: project, token: { uri, blocking in
            try BlockingFunctionToken.sign(event: "beforeCreate", user: user, facts: event, functionURI: uri,
                                           forwarding: blocking, project: project, issuerPrefix: issuerPrefix,
                                           now: clock.now())
        }) else { return }
        _ = reply.apply(to: &user)
    }

    public func beforeSignIn(_ user: inout UserRecord, event: AccountEvent, in project: ProjectContext) async throws
        -> String? {
        let current = user
        guard let reply = try await call("beforeSignIn", in: project, token: { uri, blocking in
            try BlockingFunctionToken.sign(event: "beforeSignIn", user: current, facts: event, functionURI: uri,
                                           forwarding: blocking, project: project, issuerPrefix: issuerPrefix,
                                           now: clock.now())
        }) else { return nil }
        return reply.apply(to: &user)
    }

    /// `recaptchaActionOverride: "BLOCK"` refuses the email or SMS (Hearth scores no reCAPTCHA for `ALLOW` to
    /// override, so `ALLOW` changes nothing).
    public func beforeSend(_ message: OutgoingMessage, in project: ProjectContext) async throws {
        guard let reply = try await call(message.eventType, in: project, token: { uri, _ in
            try BlockingFunctionToken.sign(message: message, functionURI: uri, project: project,
                                           issuerPrefix: issuerPrefix, now: clock.now())
        }) else { return }
        if reply.recaptchaAction == "BLOCK" {
            throw AuthFailure.blockingFunctionError("((The \(message.eventType) function blocked the message.))")
        }
    }

    /// The function's answer, or `nil` when the project has no function for the event.
    func call(_ eventType: String, in project: ProjectContext,
              token: (_ functionURI: String, _ config: BlockingFunctions) throws -> String) async throws
        -> BlockingFunctionReply? {
        guard let blocking = project.settings.blockingFunctions,
              let uri = blocking.triggers[eventType]?.functionURI else { return nil }
        let jwt = try token(uri, blocking)
        var request = HTTPClientRequest(url: uri)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: ["data": ["jwt": jwt]])))
        let response: HTTPClientResponse
        let body: ByteBuffer
        do {
            response = try await http.execute(request, timeout: timeout)
            body = try await response.body.collect(upTo: 1 << 20)
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw AuthFailure.blockingFunctionError("((Deadline exceeded making request to \(uri).))")
        } catch {
            throw AuthFailure.blockingFunctionError("((Failed to make request to \(uri).))")
        }
        let data = Data(buffer: body)
        guard (200..<300).contains(response.status.code) else {
            throw AuthFailure.blockingFunctionError("HTTP Error: \(response.status.code), \(Self.message(data) ?? response.status.reasonPhrase)")
        }
        return try BlockingFunctionReply(body: data, event: eventType)
    }

    /// The message of a function's error, as firebase-functions writes it (`{"error": {"message": …}}`).
    static func message(_ body: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let error = object["error"] as? [String: Any], let message = error["message"] as? String else { return nil }
        return String(message.prefix(500))
    }
}
