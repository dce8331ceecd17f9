import Foundation
import HearthCore
import HearthMail
import HearthWire
import Hummingbird

/// Hearth's own admin calls for a project's email templates, one per language and action: read them with what the
/// config file pins (`GET …/emailTemplates`), save or reset one (`PATCH`), and see one as it is sent (`:preview`,
/// a draft allowed). Saved templates are stored with the project, so every instance sends the last one saved; the
/// config file's `email.templates` win for their language and action, and saving over one of those is refused.
///
/// ```sh
/// curl -X PATCH "$HEARTH/v1/projects/$PROJECT/emailTemplates" -H "Authorization: Bearer $ADMIN" \
///   -d '{"locale":"fr","type":"PASSWORD_RESET","template":{"subject":"Nouveau mot de passe pour %APP_NAME%"}}'
/// ```
enum EmailTemplateRoutes {
    /// What the console's template editor shows.
    struct Listing: Encodable {
        /// The stored templates (the admin API's, the console's).
        var templates: EmailTemplateSet
        /// Language → action → where the template that wins is set (`the config file (email.templates)`).
        var pinned: [String: [String: String]]
        var locales: [String]
        var defaultLocale: String
        /// The configured sender, which a template without its own uses.
        var from: String
        var fromName: String
    }

    static func get(_ call: Call) async throws -> Response {
        let project = try await call.adminProject(nil)
        return json(try listing(project.record, call))
    }

    struct Change: Decodable {
        var locale: String?
        var type: String?
        /// The new template; absent, `null` or all empty: back to Hearth's own.
        var template: EmailTemplate?
    }

    static func patch(_ call: Call) async throws -> Response {
        let project = try await call.adminProject(nil)
        let change = try call.decode(Change.self)
        let settings = call.configuration.emailConfiguration(for: project.id)
        let type = try actionType(change.type)
        let locale = try language(change.locale, known: try compiled(project.record, settings).locales)
        if let source = pins(settings, call)[locale]?[type.rawValue] {
            throw APIError.business(.invalidArgument, "the \(locale) \(type.rawValue) template is set by \(source) "
                + "and applied at every start: change it there, or remove it there to manage it here")
        }
        let template = try validated(change.template?.normalized ?? EmailTemplate(), sender: settings.from)
        let updated = try await call.services.projects.modify(project.id) { record in
            try store([(locale, type, template)], in: &record, call: call)
        }
        return json(try listing(updated.record, call))
    }

    /// Saves templates (an empty one: back to Hearth's own), refusing the lot if one does not compile.
    static func store(_ templates: [(locale: String, type: ActionCodeType, template: EmailTemplate)],
                      in record: inout ProjectRecord, call: Call) throws {
        var stored = record.settings.emailTemplates ?? [:]
        for (locale, type, template) in templates {
            stored[locale, default: [:]][type.rawValue] = template.isEmpty ? nil : template
            if stored[locale]?.isEmpty == true { stored[locale] = nil }
        }
        record.settings.emailTemplates = stored.isEmpty ? nil : stored
        _ = try compiled(record, call.configuration.emailConfiguration(for: record.id))
    }

    /// The templates a config patch's `notification.sendEmail` sets, for the default language: each named by the
    /// mask (absent from the body: back to Hearth's own), checked as `PATCH …/emailTemplates` checks them.
    static func configTemplates(_ notification: NotificationConfigWire?, named mask: Set<String>, project: ProjectContext,
                                call: Call) throws -> [(locale: String, type: ActionCodeType, template: EmailTemplate)] {
        let settings = call.configuration.emailConfiguration(for: project.id)
        return try NotificationConfigWire.templates.compactMap { field, action in
            guard mask.contains("notification.sendEmail." + field), let type = ActionCodeType(rawValue: action) else { return nil }
            if let source = pins(settings, call)[settings.defaultLocale]?[action] {
                throw APIError.business(.invalidArgument, "notification.sendEmail.\(field) is set by \(source) and applied "
                    + "at every start: change it there, or remove it there to manage it here")
            }
            let template = try notification?.sendEmail?[field].map { try EmailTemplate($0, email: settings) } ?? EmailTemplate()
            return (settings.defaultLocale, type, try validated(template, sender: settings.from))
        }
    }

    struct PreviewRequest: Decodable {
        var type: String?
        var locale: String?
        var template: EmailTemplate?
    }

    struct Preview: Encodable {
        var locale: String
        var from: String
        var fromName: String?
        var subject: String
        var text: String
        var html: String
        var locales: [String]
    }

    /// Renders one email as it would be sent (sample values; the link is an example), with `template` in place of
    /// the stored one for that type and language when given.
    static func preview(_ call: Call) async throws -> Response {
        let project = try await call.adminProject(nil)
        let body = call.jsonBody(PreviewRequest.self) ?? PreviewRequest()
        let settings = call.configuration.emailConfiguration(for: project.id)
        let (email, templates) = try sample(body, project: project.record, settings: settings, call: call)
        let sender = settings.sender(of: email)
        return json(Preview(locale: email.locale, from: sender.email, fromName: sender.name, subject: email.subject,
                            text: email.text, html: email.html, locales: templates.locales))
    }

    /// The email `request` describes, filled with sample values, and the templates it came from.
    static func sample(_ request: PreviewRequest, project: ProjectRecord, settings: EmailConfiguration, call: Call)
        throws -> (RenderedEmail, EmailTemplates) {
        let type = try actionType(request.type)
        let locale = request.locale ?? settings.defaultLocale
        let draft = try request.template.map { (locale, type, try validated($0.normalized, sender: settings.from)) }
        let templates = try compiled(project, settings, draft: draft)
        let link = call.services.publicBaseURL
            + "/__/auth/action?mode=\(type.mode)&oobCode=EXAMPLE&apiKey=EXAMPLE&lang=\(locale)"
        let email = templates.render(type, locale: locale, values: EmailValues(
            appName: settings.appName, link: link, email: "ada@example.com", newEmail: "ada.new@example.com",
            displayName: "Ada"))
        return (email, templates)
    }

    /// The project's templates as the outbox sends them (stored, the config file's over them), with `draft` in
    /// place of the stored one for its language and action.
    static func compiled(_ project: ProjectRecord, _ settings: EmailConfiguration,
                         draft: (locale: String, type: ActionCodeType, template: EmailTemplate)? = nil)
        throws -> EmailTemplates {
        var stored = project.settings.emailTemplates ?? [:]
        if let draft { stored[draft.locale, default: [:]][draft.type.rawValue] = draft.template }
        do {
            return try EmailTemplates(overrides: stored.overlaid(by: settings.templates),
                                      defaultLocale: settings.defaultLocale)
        } catch {
            throw APIError.business(.invalidArgument, "the template does not compile: \(error)")
        }
    }

    static func listing(_ record: ProjectRecord, _ call: Call) throws -> Listing {
        let settings = call.configuration.emailConfiguration(for: record.id)
        return Listing(templates: record.settings.emailTemplates ?? [:], pinned: pins(settings, call),
                       locales: try compiled(record, settings).locales, defaultLocale: settings.defaultLocale,
                       from: settings.from, fromName: settings.fromName ?? settings.appName)
    }

    /// The config file's templates, each with where it is set.
    static func pins(_ settings: EmailConfiguration, _ call: Call) -> [String: [String: String]] {
        let source = call.configuration.settingSources["emailTemplates"] ?? "the config file (email.templates)"
        return settings.templates.mapValues { $0.mapValues { _ in source } }
    }

    static func actionType(_ name: String?) throws -> ActionCodeType {
        guard let type = ActionCodeType(rawValue: name ?? "") else {
            let types = ActionCodeType.allCases.map(\.rawValue).joined(separator: ", ")
            throw APIError.business(.invalidArgument, "type must be one of \(types)")
        }
        return type
    }

    /// A language tag (`fr`, `pt-BR`, `zh-Hant-TW`), spelled as a language Hearth already writes in when it is one.
    static func language(_ tag: String?, known: [String]) throws -> String {
        guard let tag = tag?.replacingOccurrences(of: "_", with: "-"),
              tag.range(of: #"^[A-Za-z]{2,3}(-[A-Za-z0-9]{1,8}){0,3}$"#, options: .regularExpression) != nil
        else { throw APIError.business(.invalidArgument, "locale must be a language tag, like fr or pt-BR") }
        return known.first { $0.caseInsensitiveCompare(tag) == .orderedSame } ?? tag
    }

    /// Refuses what would break a message's headers or overflow it, and a sender outside the configured domain.
    static func validated(_ template: EmailTemplate, sender configured: String) throws -> EmailTemplate {
        for (name, value) in [("fromName", template.fromName), ("subject", template.subject)] {
            guard let value else { continue }
            guard value.count <= 300, !value.contains(where: \.isNewline),
                  !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            else { throw APIError.business(.invalidArgument, "\(name) must be one line of at most 300 characters") }
        }
        for (name, value) in [("text", template.text), ("html", template.html)] where (value?.utf8.count ?? 0) > 65_536 {
            throw APIError.business(.invalidArgument, "\(name) must be at most 64 KiB")
        }
        if let from = template.from {
            let domain = configured.split(separator: "@").last.map { $0.lowercased() } ?? ""
            guard EmailAddress.isValid(from), from.split(separator: "@").last?.lowercased() == domain else {
                throw APIError.business(.invalidArgument,
                                        "from must be an address at \(domain), the domain of the configured sender "
                                        + "(email.from), which its SMTP server may send for")
            }
        }
        return template
    }
}
