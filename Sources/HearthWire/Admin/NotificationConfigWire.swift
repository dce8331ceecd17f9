/// The config's `notification`: the emails Firebase sends, each as Firebase's console edits it. Hearth reads and
/// writes the templates of its emails in the project's default language (other languages: `…/emailTemplates`); the
/// rest of Google's resource (`smtp`, `dnsInfo`, `sendSms`, …) is accepted on input and not kept.
public struct NotificationConfigWire: Codable, Sendable, Equatable {
    public var sendEmail: SendEmail?
    public var sendSms: JSONValue?
    public var defaultLocale: String?

    public init(sendEmail: SendEmail?, defaultLocale: String?) {
        self.sendEmail = sendEmail
        self.defaultLocale = defaultLocale
    }

    /// The templates by their field in `sendEmail`, with the action each is for (Hearth's `ActionCodeType` names).
    /// Firebase's `revertSecondFactorAdditionTemplate` has no counterpart: Hearth does not send that email.
    public static let templates = [("resetPasswordTemplate", "PASSWORD_RESET"), ("verifyEmailTemplate", "VERIFY_EMAIL"),
                                   ("changeEmailTemplate", "RECOVER_EMAIL")]
    /// Their `updateMask` paths.
    public static let paths = templates.map { "notification.sendEmail." + $0.0 }

    public struct SendEmail: Codable, Sendable, Equatable {
        public var method: String?
        public var resetPasswordTemplate: Template?
        public var verifyEmailTemplate: Template?
        public var changeEmailTemplate: Template?
        public var revertSecondFactorAdditionTemplate: Template?
        public var legacyResetPasswordTemplate: Template?
        public var callbackUri: String?
        public var dnsInfo: JSONValue?
        public var smtp: JSONValue?

        public init() {}

        /// The template of a field named in ``NotificationConfigWire/templates``.
        public subscript(field: String) -> Template? {
            get {
                switch field {
                case "resetPasswordTemplate": resetPasswordTemplate
                case "verifyEmailTemplate": verifyEmailTemplate
                case "changeEmailTemplate": changeEmailTemplate
                default: nil
                }
            }
            set {
                switch field {
                case "resetPasswordTemplate": resetPasswordTemplate = newValue
                case "verifyEmailTemplate": verifyEmailTemplate = newValue
                case "changeEmailTemplate": changeEmailTemplate = newValue
                default: break
                }
            }
        }
    }

    /// One email: the sender's display name and the part of its address before the `@` (the domain is the
    /// project's), the subject, and the body as text or HTML. `customized` is false for the server's own wording.
    public struct Template: Codable, Sendable, Equatable {
        public var senderLocalPart: String?
        public var subject: String?
        public var senderDisplayName: String?
        public var body: String?
        /// `PLAIN_TEXT` or `HTML`.
        public var bodyFormat: String?
        public var replyTo: String?
        public var customized: Bool?

        public init(senderLocalPart: String?, subject: String?, senderDisplayName: String?, body: String?,
                    bodyFormat: String?, replyTo: String? = nil, customized: Bool) {
            self.senderLocalPart = senderLocalPart
            self.subject = subject
            self.senderDisplayName = senderDisplayName
            self.body = body
            self.bodyFormat = bodyFormat
            self.replyTo = replyTo
            self.customized = customized
        }
    }
}
