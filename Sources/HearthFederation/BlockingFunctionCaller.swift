import AsyncHTTPClient
import Foundation
import HearthCore
import Logging
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
    let target: OutboundTarget
    let issuerPrefix: String
    let clock: any HearthClock
    let timeout: TimeAmount

    /// `timeout` bounds each whole call, waiting for a connection included (``OutboundTarget``).
    public init(issuerPrefix: String, clock: any HearthClock, target: OutboundTarget = .functions,
                timeout: TimeAmount = .seconds(7)) {
        self.target = target
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
        // The client hears which function failed, never its URL (an internal address); the log has it.
        do {
            (response, body) = try await target.call(request, timeout: timeout)
        } catch is OutboundDeadlineExceeded {
            log.warning("blocking function did not answer in time", metadata: ["event": "\(eventType)", "url": "\(uri)",
                "hint": "the call is refused (fail closed); make the function answer within 7 seconds"])
            throw AuthFailure.blockingFunctionError("((Deadline exceeded making request to the \(eventType) function.))")
        } catch {
            log.warning("blocking function not reachable", metadata: ["event": "\(eventType)", "url": "\(uri)",
                                                                      "error": "\(error)"])
            throw AuthFailure.blockingFunctionError("((Failed to make request to the \(eventType) function.))")
        }
        let data = Data(buffer: body)
        guard (200..<300).contains(response.status.code) else {
            throw AuthFailure.blockingFunctionError("HTTP Error: \(response.status.code), \(Self.message(data) ?? response.status.reasonPhrase)")
        }
        return try BlockingFunctionReply(body: data, event: eventType)
    }

    private var log: Logger { Logger(label: "hearth.functions") }

    /// The message of a function's error, as firebase-functions writes it (`{"error": {"message": …}}`).
    static func message(_ body: Data) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any],
              let error = object["error"] as? [String: Any], let message = error["message"] as? String else { return nil }
        return String(message.prefix(500))
    }
}
