import Foundation
import HearthCore
@testable import HearthMail
import Testing

@Suite struct EmailTemplatesTests {
    let values = EmailValues(appName: "Acme", link: "https://auth.example.com/__/auth/action?mode=x&oobCode=C0DE",
                             email: "ana@example.com", newEmail: "new@example.com", displayName: "Ana <b>")

    @Test func everyActionIsWrittenInEveryRequiredLanguage() throws {
        let templates = try EmailTemplates()
        let required = ["en", "fr", "de", "es", "pt-BR", "ja", "zh-CN", "zh-TW", "ko"]
        #expect(Set(required).isSubset(of: templates.locales))
        var subjects = Set<String>()
        for locale in required {
            for type in ActionCodeType.allCases {
                let email = templates.render(type, locale: locale, values: values)
                #expect(email.locale == locale)
                #expect(email.subject.contains("Acme"), "\(locale) \(type) subject: \(email.subject)")
                #expect(email.text.contains(values.link), "\(locale) \(type) text has the link")
                #expect(!email.text.contains("{{") && !email.html.contains("{{"))
                #expect(email.html.contains("href=\"https://auth.example.com/__/auth/action?mode=x&amp;oobCode=C0DE\""))
                #expect(email.html.contains("Ana &lt;b&gt;") && !email.html.contains("Ana <b>"), "values are escaped in HTML")
                if [.passwordReset, .emailSignIn].contains(type) { #expect(email.text.contains("ana@example.com")) }
                if [.verifyAndChangeEmail, .recoverEmail].contains(type) { #expect(email.text.contains("new@example.com")) }
                subjects.insert(email.subject)
            }
        }
        #expect(subjects.count == required.count * ActionCodeType.allCases.count, "no language repeats another's subject")
    }

    @Test func theClientsLocaleIsMatchedAndUnknownOnesFallBack() throws {
        let templates = try EmailTemplates(defaultLocale: "de")
        #expect(templates.render(.verifyEmail, locale: "pt", values: values).locale == "pt-BR")
        #expect(templates.render(.verifyEmail, locale: "zh-Hant-HK", values: values).locale == "zh-TW")
        #expect(templates.render(.verifyEmail, locale: "zh_CN", values: values).locale == "zh-CN")
        #expect(templates.render(.verifyEmail, locale: "fr-CA", values: values).locale == "fr")
        #expect(templates.render(.verifyEmail, locale: "xx", values: values).locale == "de")
        #expect(templates.render(.verifyEmail, locale: nil, values: values).locale == "de")
    }

    @Test func operatorsOverrideWithFirebasePlaceholdersAndAddLanguages() throws {
        let templates = try EmailTemplates(overrides: [
            "fr": ["PASSWORD_RESET": .init(subject: "Nouveau mot de passe pour %APP_NAME%")],
            "it": ["VERIFY_EMAIL": .init(subject: "Verifica l'email per {{appName}}",
                                          text: "Ciao %DISPLAY_NAME%,\n\n%LINK%\n")],
        ])
        let french = templates.render(.passwordReset, locale: "fr", values: values)
        #expect(french.subject == "Nouveau mot de passe pour Acme")
        #expect(french.text.contains("réinitialiser"), "the body keeps the built-in French")
        let italian = templates.render(.verifyEmail, locale: "it-IT", values: values)
        #expect(italian.locale == "it" && italian.text == "Ciao Ana <b>,\n\n\(values.link)\n")
        #expect(italian.html.contains("<p>Ciao Ana &lt;b&gt;,</p>"))
        #expect(templates.render(.passwordReset, locale: "it", values: values).subject.contains("Reset"),
                "actions an added language does not override come from the default language")
    }

    @Test func brokenOverridesAreRefusedAtStartWithTheirName() {
        #expect(throws: EmailTemplateError.self) { try EmailTemplates(overrides: ["fr": ["RESET": .init(subject: "x")]]) }
        do {
            _ = try EmailTemplates(overrides: ["fr": ["PASSWORD_RESET": .init(text: "{{#link}}unclosed")]])
            Issue.record("an unclosed section was accepted")
        } catch {
            #expect("\(error)".contains("fr/PASSWORD_RESET text"))
        }
    }

    /// A tenant that does not inherit the project's email settings gets the built-in text; one that does, and the
    /// project itself, get the project's template.
    @Test func tenantMessagesUseTheBuiltInTextUnlessTheyInherit() throws {
        let mailer = try ProjectMailer(configuration: EmailConfiguration(
            smtp: .init(host: "127.0.0.1", port: 25, security: .none, timeout: 5), from: "noreply@acme.test", appName: "Acme",
            templates: ["en": ["PASSWORD_RESET": .init(subject: "Acme custom reset", text: "Custom: {{link}}")]]))
        var message = OutboxMessage(projectID: "p1", type: .passwordReset, recipient: "ana@example.com", code: "C",
                                    link: "https://auth.example.com/__/auth/action?oobCode=C", locale: "en", createdAt: Date())
        #expect(try mailer.message(for: message, date: Date()).subject == "Acme custom reset")
        message.tenantID = "t-a"
        message.builtInText = true
        let builtIn = try mailer.message(for: message, date: Date())
        #expect(builtIn.subject != "Acme custom reset" && builtIn.subject.contains("Acme") && builtIn.text.contains("oobCode=C"))
        message.builtInText = false
        #expect(try mailer.message(for: message, date: Date()).subject == "Acme custom reset")
    }
}
