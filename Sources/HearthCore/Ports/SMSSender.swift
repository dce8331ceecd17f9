import Foundation

/// Delivers verification codes: the emulator's outbox, an HTTP webhook, an SMS API. Throwing means not sent.
public protocol SMSSender: Sendable {
    func send(_ message: SMSMessage) async throws
}

/// One verification SMS to deliver.
public struct SMSMessage: Sendable, Equatable {
    public var projectID: String
    public var phoneNumber: String
    public var code: String
    /// The session the code belongs to (Firebase's emulator lists it beside the code).
    public var sessionInfo: String
    /// `X-Firebase-Locale`: the language of the text.
    public var locale: String?
    /// The tenant the session was started in.
    public var tenantID: String?

    public init(projectID: String, tenantID: String? = nil, phoneNumber: String, code: String, sessionInfo: String,
                locale: String?) {
        self.projectID = projectID
        self.tenantID = tenantID
        self.phoneNumber = phoneNumber
        self.code = code
        self.sessionInfo = sessionInfo
        self.locale = locale
    }
}

/// An SMS that was not sent (provider down, refused, not configured). The server answers 503 and logs `reason`.
public struct SMSDeliveryFailure: Error, Sendable, Equatable {
    public var reason: String
    public init(reason: String) { self.reason = reason }
}
