import Foundation
import HearthCore
import HearthMail
import Hummingbird

/// Hearth's own admin calls for what operators check by hand: whether mail and SMS go out (`emailTest`, `smsTest`).
/// The console's settings page uses them.
enum MessagingRoutes {
    struct Outcome: Encodable {
        var delivered: Bool
        var error: String?
    }

    /// Sends one message through the project's SMTP server now, and says what the server answered: a plain note, or
    /// with `type` (and `locale`, `template` as for a preview) that email as it would be sent, with sample values.
    static func emailTest(_ call: Call) async throws -> Response {
        struct Body: Decodable {
            var to: String?
            var type: String?
            var locale: String?
            var template: EmailTemplate?
        }
        let project = try await call.adminProject(nil)
        guard let body = call.jsonBody(Body.self), let to = body.to, EmailAddress.isValid(to) else {
            throw APIError.business(.invalidArgument, "to must be an email address")
        }
        let settings = call.configuration.emailConfiguration(for: project.id)
        var message = MailMessage(from: .init(settings.from, name: settings.fromName ?? settings.appName), to: .init(to),
                                  subject: "Hearth test message for \(settings.appName)",
                                  text: "This message was sent from Hearth's console to check the SMTP settings of \(project.id).")
        if body.type != nil {
            let request = EmailTemplateRoutes.PreviewRequest(type: body.type, locale: body.locale, template: body.template)
            let (email, _) = try EmailTemplateRoutes.sample(request, project: project.record, settings: settings, call: call)
            message = MailMessage(from: settings.sender(of: email), to: .init(to), subject: email.subject,
                                  text: email.text, html: email.html)
        }
        guard settings.smtp != nil, let mailer = try? ProjectMailer(configuration: settings) else {
            return json(Outcome(delivered: false, error: "no SMTP server is configured: set email.smtp in the config file or HEARTH_SMTP_URL"))
        }
        do {
            try await mailer.transport.send(message)
            return json(Outcome(delivered: true))
        } catch {
            return json(Outcome(delivered: false, error: "\(error)"))
        }
    }

    /// Sends one test code through the configured SMS provider now.
    static func smsTest(_ call: Call) async throws -> Response {
        struct Body: Decodable { var phoneNumber: String? }
        let project = try await call.adminProject(nil)
        guard let number = call.jsonBody(Body.self)?.phoneNumber,
              PhoneNumber.isValid(number)
        else { throw APIError.business(.invalidArgument, "phoneNumber must be in E.164 form, like +15555550100") }
        do {
            try await call.services.sms.send(SMSMessage(projectID: project.id, phoneNumber: number, code: "000000",
                                                        sessionInfo: "console-test", locale: nil))
            return json(Outcome(delivered: true))
        } catch {
            return json(Outcome(delivered: false, error: "\(error)"))
        }
    }
}
