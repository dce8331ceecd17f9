import Foundation
import HearthCore
import HearthMail
import HearthWire

// The config's `notification.sendEmail` templates: Firebase's shape of the templates Hearth stores by language and
// action (`ProjectSettings.emailTemplates`), for the project's default language. What Firebase's console shows and
// `auth:migrate` moves.

extension NotificationConfigWire {
    /// The templates that win for the default language (the config file's over the stored ones). One not set shows
    /// `customized: false` with the sender only: Hearth's own wording is not a template an API can copy.
    init(stored: EmailTemplateSet, email: EmailConfiguration) {
        let locale = email.defaultLocale
        let winning = stored.overlaid(by: email.templates)[locale] ?? [:]
        var sendEmail = SendEmail()
        sendEmail.method = "CUSTOM_SMTP"
        for (field, action) in Self.templates {
            let template = winning[action] ?? EmailTemplate()
            let sender = template.from ?? email.from
            let body = template.html ?? template.text
            sendEmail[field] = Template(
                senderLocalPart: String(sender.split(separator: "@").first ?? ""), subject: template.subject.map(Self.firebasePlaceholders),
                senderDisplayName: template.fromName ?? email.fromName ?? email.appName, body: body.map(Self.firebasePlaceholders),
                bodyFormat: body == nil ? nil : template.html != nil ? "HTML" : "PLAIN_TEXT", customized: !template.isEmpty)
        }
        self.init(sendEmail: sendEmail, defaultLocale: locale)
    }

    /// Mustache's variables in Firebase's spelling, which Firebase sends and Hearth reads too.
    static func firebasePlaceholders(_ text: String) -> String {
        var text = text
        for (name, firebase) in [("appName", "APP_NAME"), ("link", "LINK"), ("email", "EMAIL"), ("newEmail", "NEW_EMAIL"),
                                 ("displayName", "DISPLAY_NAME")] {
            for spelling in ["{{{\(name)}}}", "{{\(name)}}", "{{ \(name) }}"] {
                text = text.replacingOccurrences(of: spelling, with: "%\(firebase)%")
            }
        }
        return text
    }
}

extension EmailTemplate {
    /// A template as Firebase's config gives it, the sender's address at the domain of the configured one. The
    /// configured sender's own name and address are left unset, so the template follows them when they change. A
    /// reply-to address is refused: Hearth's emails have none (Firebase's `noreply` means none as well).
    init(_ wire: NotificationConfigWire.Template, email: EmailConfiguration) throws {
        if let replyTo = wire.replyTo, !replyTo.isEmpty, replyTo != "noreply" {
            throw APIError.business(.invalidArgument, "replyTo is not supported: Hearth's emails have no Reply-To address")
        }
        let html = wire.bodyFormat == "HTML"
        guard wire.bodyFormat == nil || html || wire.bodyFormat == "PLAIN_TEXT" else {
            throw APIError.business(.invalidArgument, "bodyFormat must be PLAIN_TEXT or HTML")
        }
        let parts = email.from.split(separator: "@").map(String.init)
        let localPart = wire.senderLocalPart.flatMap { $0.isEmpty || $0 == parts.first ? nil : $0 }
        let name = wire.senderDisplayName.flatMap { $0 == (email.fromName ?? email.appName) ? nil : $0 }
        self = EmailTemplate(fromName: name, from: localPart.map { "\($0)@\(parts.last ?? "")" },
                             subject: wire.subject, text: html ? nil : wire.body, html: html ? wire.body : nil).normalized
    }
}
