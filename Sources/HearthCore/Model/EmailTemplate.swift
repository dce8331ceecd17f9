import Foundation

/// One email as an operator writes it, for one action in one language: in the config file (`email.templates`) or
/// stored with the project (the console, `PATCH …/emailTemplates`). Any part left out keeps Hearth's own wording
/// and the configured sender. Placeholders are Mustache (`{{appName}}`, `{{link}}`, `{{email}}`, `{{newEmail}}`,
/// `{{displayName}}`) or Firebase's (`%APP_NAME%`, `%LINK%`, `%EMAIL%`, `%NEW_EMAIL%`, `%DISPLAY_NAME%`), so
/// templates copied from the Firebase console work as they are.
public struct EmailTemplate: Sendable, Codable, Equatable {
    /// The `From:` display name (Firebase's "sender name").
    public var fromName: String?
    /// The `From:` address; it must be at the domain of the configured sender (`email.from`), whose SMTP server is
    /// allowed to send for it (Firebase lets the console change only the part before the `@` too).
    public var from: String?
    public var subject: String?
    public var text: String?
    /// The HTML part; when absent it is made from `text` (paragraphs, the link as a link, everything escaped).
    public var html: String?

    public init(fromName: String? = nil, from: String? = nil, subject: String? = nil, text: String? = nil,
                html: String? = nil) {
        self.fromName = fromName
        self.from = from
        self.subject = subject
        self.text = text
        self.html = html
    }

    /// Empty parts as absent ones: a cleared field in the console means "Hearth's own".
    public var normalized: EmailTemplate {
        func kept(_ part: String?) -> String? {
            guard let part, !part.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
            return part
        }
        return EmailTemplate(fromName: kept(fromName), from: kept(from), subject: kept(subject), text: kept(text),
                             html: kept(html))
    }

    /// Whether nothing is set: the template is Hearth's own.
    public var isEmpty: Bool { self == EmailTemplate() }
}

/// Templates by language (`fr`, `pt-BR`, …), then by action (`PASSWORD_RESET`, …).
public typealias EmailTemplateSet = [String: [String: EmailTemplate]]

extension Dictionary where Key == String, Value == [String: EmailTemplate] {
    /// `self` with every template of `pinned` in place of the one for the same language and action.
    public func overlaid(by pinned: EmailTemplateSet) -> EmailTemplateSet {
        var merged = self
        for (locale, actions) in pinned {
            merged[locale, default: [:]].merge(actions) { _, pinned in pinned }
        }
        return merged
    }
}
