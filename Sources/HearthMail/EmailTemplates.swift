import Foundation
import HearthCore
import Mustache

/// What fills a template's placeholders.
public struct EmailValues: Sendable, Equatable {
    public var appName: String
    public var link: String
    public var email: String
    public var newEmail: String?
    public var displayName: String?

    public init(appName: String, link: String, email: String, newEmail: String? = nil, displayName: String? = nil) {
        self.appName = appName
        self.link = link
        self.email = email
        self.newEmail = newEmail
        self.displayName = displayName
    }
}

/// A rendered email, ready for ``MailMessage``.
public struct RenderedEmail: Sendable, Equatable {
    public var locale: String
    /// The template's sender, when it names one (else the configured sender).
    public var fromName: String?
    public var from: String?
    public var subject: String
    public var text: String
    public var html: String
}

/// A template that cannot be used; reported at start-up, naming the culprit.
public enum EmailTemplateError: Error, CustomStringConvertible {
    case unknownAction(locale: String, name: String)
    case invalid(locale: String, action: String, part: String, reason: String)

    public var description: String {
        switch self {
        case .unknownAction(let locale, let name):
            "email template \(locale)/\(name): unknown action; use one of "
                + ActionCodeType.allCases.map(\.rawValue).joined(separator: ", ")
        case .invalid(let locale, let action, let part, let reason):
            "email template \(locale)/\(action) \(part): \(reason)"
        }
    }
}

/// Hearth's emails in English, French, German, Spanish, Brazilian Portuguese, Japanese, Simplified and Traditional
/// Chinese and Korean, with an operator's overrides on top (any action, any language, including new languages).
/// The language is the best match for the client's `X-Firebase-Locale`, else the project's default.
///
/// ```swift
/// let templates = try EmailTemplates(overrides: ["fr": ["PASSWORD_RESET": .init(subject: "Nouveau mot de passe")]])
/// let email = templates.render(.passwordReset, locale: "fr-CA",
///                              values: .init(appName: "Acme", link: link, email: "ana@example.com"))
/// ```
public struct EmailTemplates: Sendable {
    struct Compiled: Sendable {
        var subject: MustacheTemplate
        var text: MustacheTemplate
        var html: MustacheTemplate
        var fromName: String?
        var from: String?
    }

    private let compiled: [String: [ActionCodeType: Compiled]]
    public let defaultLocale: String
    /// Every language an email can be written in.
    public var locales: [String] { compiled.keys.sorted() }

    public init(overrides: EmailTemplateSet = [:], defaultLocale: String = "en") throws {
        let builtIn = BuiltInEmailText.locales
        let fallback = LocaleMatch.best(for: defaultLocale, among: Array(builtIn.keys)) ?? "en"
        var compiled: [String: [ActionCodeType: Compiled]] = [:]
        for locale in Set(builtIn.keys).union(overrides.keys) {
            var byAction = [ActionCodeType: EmailTemplate]()
            for (name, template) in overrides[locale] ?? [:] {
                guard let type = ActionCodeType(rawValue: name) else {
                    throw EmailTemplateError.unknownAction(locale: locale, name: name)
                }
                byAction[type] = template
            }
            let words = builtIn[locale] ?? builtIn[fallback]!
            var actions: [ActionCodeType: Compiled] = [:]
            for type in ActionCodeType.allCases {
                let custom = byAction[type] ?? EmailTemplate()
                let own = words.actions[type]!
                let text = custom.text.map(Self.mustache) ?? Self.text(words, own)
                let html = custom.html.map(Self.mustache) ?? Self.html(fromText: text, locale: locale)
                let part = { (name: String, source: String, kind: String) throws -> MustacheTemplate in
                    do { return try MustacheTemplate(string: kind + source) } catch {
                        throw EmailTemplateError.invalid(locale: locale, action: type.rawValue, part: name,
                                                         reason: "\(error)")
                    }
                }
                actions[type] = Compiled(
                    subject: try part("subject", (custom.subject.map(Self.mustache) ?? own.subject), Self.plain),
                    text: try part("text", text, Self.plain),
                    html: try part("html", html, ""),
                    fromName: custom.fromName, from: custom.from)
            }
            compiled[locale] = actions
        }
        self.compiled = compiled
        self.defaultLocale = LocaleMatch.best(for: defaultLocale, among: Array(compiled.keys)) ?? "en"
    }

    /// The email for `type` in the language best matching `locale`.
    public func render(_ type: ActionCodeType, locale: String?, values: EmailValues) -> RenderedEmail {
        let chosen = LocaleMatch.best(for: locale, among: Array(compiled.keys)) ?? defaultLocale
        let templates = compiled[chosen]![type]!
        var context: [String: Any] = ["appName": values.appName, "link": values.link, "email": values.email,
                                      "lang": chosen]
        if let newEmail = values.newEmail, !newEmail.isEmpty { context["newEmail"] = newEmail }
        if let name = values.displayName, !name.isEmpty { context["displayName"] = name }
        let subject = templates.subject.render(context).trimmingCharacters(in: .whitespacesAndNewlines)
        return RenderedEmail(locale: chosen, fromName: templates.fromName, from: templates.from, subject: subject,
                             text: templates.text.render(context), html: templates.html.render(context))
    }

    static let plain = "{{% CONTENT_TYPE: TEXT}}"

    /// Firebase's `%PLACEHOLDER%`s as Mustache tags.
    static func mustache(_ source: String) -> String {
        [("%APP_NAME%", "{{appName}}"), ("%LINK%", "{{link}}"), ("%EMAIL%", "{{email}}"),
         ("%NEW_EMAIL%", "{{newEmail}}"), ("%DISPLAY_NAME%", "{{displayName}}")]
            .reduce(source) { $0.replacingOccurrences(of: $1.0, with: $1.1) }
    }

    static func text(_ words: BuiltInEmailText, _ action: BuiltInEmailText.Action) -> String {
        ([words.greeting, action.intro, "{{link}}", action.outro, words.signoff].filter { !$0.isEmpty })
            .joined(separator: "\n\n") + "\n"
    }

    /// A text template as an HTML template: each paragraph a `<p>`, a paragraph that is only `{{link}}` a link,
    /// literal text escaped (Mustache escapes the values).
    static func html(fromText text: String, locale: String) -> String {
        let paragraphs = text.components(separatedBy: "\n\n")
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }
            .map { paragraph -> String in
                if paragraph == "{{link}}" { return "<p><a href=\"{{link}}\">{{link}}</a></p>" }
                return "<p>" + escape(paragraph).replacingOccurrences(of: "\n", with: "<br>") + "</p>"
            }
        return """
            <!DOCTYPE html>
            <html lang="{{lang}}"><head><meta charset="utf-8"></head>
            <body style="font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;line-height:1.5;\
            color:#202124;max-width:560px;margin:0 auto;padding:24px">
            \(paragraphs.joined(separator: "\n"))
            </body></html>

            """
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
