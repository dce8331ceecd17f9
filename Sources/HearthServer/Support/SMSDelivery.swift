import Foundation
import HearthCore
import Logging
import Synchronization

/// Emulator mode's SMS "delivery": codes are kept for `GET /emulator/v1/projects/{id}/verificationCodes` and
/// logged, as Firebase's emulator does; nothing is sent.
final class EmulatorSMSOutbox: SMSSender {
    private let messages = Mutex<[SMSMessage]>([])
    let logger: Logger

    init(logger: Logger) { self.logger = logger }

    func send(_ message: SMSMessage) async throws {
        messages.withLock { $0.append(message) }
        logger.info("SMS verification code (emulator mode; nothing is sent)",
                    metadata: ["to": "\(message.phoneNumber)", "code": "\(message.code)"])
    }

    func messages(projectID: String) -> [SMSMessage] {
        messages.withLock { $0.filter { $0.projectID == projectID } }
    }

    func clear(projectID: String) {
        messages.withLock { $0.removeAll { $0.projectID == projectID } }
    }
}

/// Production without an SMS provider: refuses, saying what to configure (never logs the code).
struct UnconfiguredSMSSender: SMSSender {
    func send(_ message: SMSMessage) async throws {
        throw SMSDeliveryFailure(reason: "no SMS provider is configured (sms.webhook or sms.twilio in the config file)")
    }
}
