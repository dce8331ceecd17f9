import Foundation
import HearthCore
import HearthMail
import Hummingbird

/// Hearth's own admin calls for what operators check by hand: how an email reads (`emailTemplates:preview`, with the
/// real template engine, a draft allowed), and whether mail and SMS go out (`emailTest`, `smsTest`). The console's
/// settings page uses them.
enum MessagingRoutes {
    struct PreviewRequest: Decodable {
        var type: String?
        var locale: String?
        var template: EmailTemplate?
    }

    struct Preview: Encodable {
        var locale: String
        var subject: String
        var text: String
        var html: String
        var locales: [String]
    }

    /// Renders one email as it would be sent (sample values; the link is an example), with `template` in place of
    /// the configured one for that type and language when given.
    static func preview(_ call: Call) async throws -> Response {
        let project = try await call.adminProject(nil)
        guard let body = call.jsonBody(PreviewRequest.self),
              let type = ActionCodeType(rawValue: body.type ?? "")
        else {
            let types = ActionCodeType.allCases.map(\.rawValue).joined(separator: ", ")
            throw APIError.business(.invalidArgument, "type must be one of \(types)")
        }
        let settings = call.configuration.emailConfiguration(for: project.id)
        var overrides = settings.templates
        let locale = body.locale ?? settings.defaultLocale
        if let draft = body.template { overrides[locale, default: [:]][type.rawValue] = draft }
        let templates: EmailTemplates
        do {
            templates = try EmailTemplates(overrides: overrides, defaultLocale: settings.defaultLocale)
        } catch {
            throw APIError.business(.invalidArgument, "the template does not compile: \(error)")
        }
        let link = call.services.publicBaseURL + "/__/auth/action?mode=\(type.mode)&oobCode=EXAMPLE&apiKey=EXAMPLE&lang=\(locale)"
        let email = templates.render(type, locale: locale, values: EmailValues(
            appName: settings.appName, link: link, email: "ada@example.com", newEmail: "ada.new@example.com",
            displayName: "Ada"))
        return json(Preview(locale: email.locale, subject: email.subject, text: email.text, html: email.html,
                            locales: templates.locales))
    }

    struct Outcome: Encodable {
        var delivered: Bool
        var error: String?
    }

    /// Sends one plain message through the project's SMTP server now, and says what the server answered.
    static func emailTest(_ call: Call) async throws -> Response {
        struct Body: Decodable { var to: String? }
        let project = try await call.adminProject(nil)
        guard let to = call.jsonBody(Body.self)?.to, EmailAddress.isValid(to) else {
            throw APIError.business(.invalidArgument, "to must be an email address")
        }
        let settings = call.configuration.emailConfiguration(for: project.id)
        guard settings.smtp != nil, let mailer = try? ProjectMailer(configuration: settings) else {
            return json(Outcome(delivered: false, error: "no SMTP server is configured: set email.smtp in the config file or HEARTH_SMTP_URL"))
        }
        let message = MailMessage(from: .init(settings.from, name: settings.fromName ?? settings.appName), to: .init(to),
                                  subject: "Hearth test message for \(settings.appName)",
                                  text: "This message was sent from Hearth's console to check the SMTP settings of \(project.id).")
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
