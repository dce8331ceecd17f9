import HearthCore

/// The verification SMS in the user's language (`X-Firebase-Locale`), English when it is not one of these.
public enum SMSText {
    static let templates: [String: String] = [
        "en": "%CODE% is your verification code for %APP_NAME%.",
        "fr": "%CODE% est votre code de validation pour %APP_NAME%.",
        "de": "%CODE% ist Ihr Bestätigungscode für %APP_NAME%.",
        "es": "%CODE% es tu código de verificación de %APP_NAME%.",
        "pt-BR": "%CODE% é seu código de verificação do %APP_NAME%.",
        "ja": "%APP_NAME% の確認コードは %CODE% です。",
        "zh-CN": "%APP_NAME% 的验证码是 %CODE%。",
        "zh-TW": "%APP_NAME% 的驗證碼是 %CODE%。",
        "ko": "%APP_NAME% 인증 코드는 %CODE%입니다.",
    ]

    /// The text for `code` in `locale`.
    ///
    /// ```swift
    /// SMSText.message(code: "123456", appName: "Acme", locale: "fr-CA")   // "123456 est votre code …"
    /// ```
    public static func message(code: String, appName: String, locale: String?) -> String {
        let language = LocaleMatch.best(for: locale, among: Array(templates.keys)) ?? "en"
        return (templates[language] ?? templates["en"]!)
            .replacingOccurrences(of: "%APP_NAME%", with: appName)
            .replacingOccurrences(of: "%CODE%", with: code)
    }
}
