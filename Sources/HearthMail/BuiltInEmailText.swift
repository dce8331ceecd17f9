import HearthCore

/// The words of Hearth's own emails, per language. Placeholders are Mustache tags: `{{appName}}`, `{{email}}`,
/// `{{newEmail}}`, `{{displayName}}`; the link goes between `intro` and `outro`.
struct BuiltInEmailText: Sendable {
    struct Action: Sendable {
        var subject: String
        var intro: String
        var outro: String
    }

    var greeting: String
    var signoff: String
    var actions: [ActionCodeType: Action]

    static let locales: [String: BuiltInEmailText] = [
        "en": .init(
            greeting: "Hello{{#displayName}} {{displayName}}{{/displayName}},",
            signoff: "Thanks,\n\nYour {{appName}} team",
            actions: [
                .verifyEmail: .init(
                    subject: "Verify your email for {{appName}}",
                    intro: "Follow this link to verify your email address.",
                    outro: "If you didn’t ask to verify this address, you can ignore this email."),
                .passwordReset: .init(
                    subject: "Reset your password for {{appName}}",
                    intro: "Follow this link to reset your {{appName}} password for your {{email}} account.",
                    outro: "If you didn’t ask to reset your password, you can ignore this email."),
                .emailSignIn: .init(
                    subject: "Sign in to {{appName}}",
                    intro: "We received a request to sign in to {{appName}} using this email address. Follow this link to sign in with your {{email}} account.",
                    outro: "If you did not request this link, you can safely ignore this email."),
                .verifyAndChangeEmail: .init(
                    subject: "Verify your new email for {{appName}}",
                    intro: "Follow this link to verify {{newEmail}} as the new sign-in email for your {{appName}} account.",
                    outro: "If you didn’t ask to change your email, you can ignore this email."),
                .recoverEmail: .init(
                    subject: "Your sign-in email was changed for {{appName}}",
                    intro: "Your sign-in email for {{appName}} was changed to {{newEmail}}.\n\nIf you didn’t ask to change your email, follow this link to reset your sign-in email.",
                    outro: ""),
            ]),
        "fr": .init(
            greeting: "Bonjour{{#displayName}} {{displayName}}{{/displayName}},",
            signoff: "Merci,\n\nL’équipe {{appName}}",
            actions: [
                .verifyEmail: .init(
                    subject: "Validez votre adresse e-mail pour {{appName}}",
                    intro: "Cliquez sur ce lien pour valider votre adresse e-mail.",
                    outro: "Si vous n’avez pas demandé à valider cette adresse, vous pouvez ignorer cet e-mail."),
                .passwordReset: .init(
                    subject: "Réinitialisez votre mot de passe pour {{appName}}",
                    intro: "Cliquez sur ce lien pour réinitialiser le mot de passe {{appName}} de votre compte {{email}}.",
                    outro: "Si vous n’avez pas demandé à réinitialiser votre mot de passe, vous pouvez ignorer cet e-mail."),
                .emailSignIn: .init(
                    subject: "Connexion à {{appName}}",
                    intro: "Nous avons reçu une demande de connexion à {{appName}} avec cette adresse e-mail. Cliquez sur ce lien pour vous connecter avec votre compte {{email}}.",
                    outro: "Si vous n’avez pas demandé ce lien, vous pouvez ignorer cet e-mail."),
                .verifyAndChangeEmail: .init(
                    subject: "Validez votre nouvelle adresse e-mail pour {{appName}}",
                    intro: "Cliquez sur ce lien pour faire de {{newEmail}} la nouvelle adresse de connexion de votre compte {{appName}}.",
                    outro: "Si vous n’avez pas demandé à changer d’adresse e-mail, vous pouvez ignorer cet e-mail."),
                .recoverEmail: .init(
                    subject: "Votre adresse e-mail de connexion à {{appName}} a été modifiée",
                    intro: "Votre adresse e-mail de connexion à {{appName}} est désormais {{newEmail}}.\n\nSi vous n’êtes pas à l’origine de ce changement, cliquez sur ce lien pour rétablir votre adresse de connexion.",
                    outro: ""),
            ]),
        "de": .init(
            greeting: "Hallo{{#displayName}} {{displayName}}{{/displayName}},",
            signoff: "Vielen Dank\n\nIhr {{appName}}-Team",
            actions: [
                .verifyEmail: .init(
                    subject: "Bestätigen Sie Ihre E-Mail-Adresse für {{appName}}",
                    intro: "Klicken Sie auf diesen Link, um Ihre E-Mail-Adresse zu bestätigen.",
                    outro: "Wenn Sie diese Bestätigung nicht angefordert haben, können Sie diese E-Mail ignorieren."),
                .passwordReset: .init(
                    subject: "Setzen Sie Ihr Passwort für {{appName}} zurück",
                    intro: "Klicken Sie auf diesen Link, um das {{appName}}-Passwort für Ihr Konto {{email}} zurückzusetzen.",
                    outro: "Wenn Sie das Zurücksetzen Ihres Passworts nicht angefordert haben, können Sie diese E-Mail ignorieren."),
                .emailSignIn: .init(
                    subject: "Bei {{appName}} anmelden",
                    intro: "Wir haben eine Anfrage erhalten, sich mit dieser E-Mail-Adresse bei {{appName}} anzumelden. Klicken Sie auf diesen Link, um sich mit Ihrem Konto {{email}} anzumelden.",
                    outro: "Wenn Sie diesen Link nicht angefordert haben, können Sie diese E-Mail ignorieren."),
                .verifyAndChangeEmail: .init(
                    subject: "Bestätigen Sie Ihre neue E-Mail-Adresse für {{appName}}",
                    intro: "Klicken Sie auf diesen Link, um {{newEmail}} als neue Anmeldeadresse für Ihr {{appName}}-Konto zu bestätigen.",
                    outro: "Wenn Sie keine Änderung Ihrer E-Mail-Adresse angefordert haben, können Sie diese E-Mail ignorieren."),
                .recoverEmail: .init(
                    subject: "Ihre Anmelde-E-Mail-Adresse für {{appName}} wurde geändert",
                    intro: "Ihre Anmelde-E-Mail-Adresse für {{appName}} wurde in {{newEmail}} geändert.\n\nWenn Sie diese Änderung nicht veranlasst haben, klicken Sie auf diesen Link, um Ihre bisherige Adresse wiederherzustellen.",
                    outro: ""),
            ]),
        "es": .init(
            greeting: "Hola{{#displayName}}, {{displayName}}{{/displayName}}:",
            signoff: "Gracias,\n\nEl equipo de {{appName}}",
            actions: [
                .verifyEmail: .init(
                    subject: "Verifica tu correo electrónico para {{appName}}",
                    intro: "Sigue este enlace para verificar tu dirección de correo electrónico.",
                    outro: "Si no solicitaste verificar esta dirección, puedes ignorar este correo."),
                .passwordReset: .init(
                    subject: "Restablece tu contraseña de {{appName}}",
                    intro: "Sigue este enlace para restablecer la contraseña de {{appName}} de tu cuenta {{email}}.",
                    outro: "Si no solicitaste restablecer tu contraseña, puedes ignorar este correo."),
                .emailSignIn: .init(
                    subject: "Inicia sesión en {{appName}}",
                    intro: "Recibimos una solicitud para iniciar sesión en {{appName}} con esta dirección de correo. Sigue este enlace para acceder con tu cuenta {{email}}.",
                    outro: "Si no solicitaste este enlace, puedes ignorar este correo."),
                .verifyAndChangeEmail: .init(
                    subject: "Verifica tu nuevo correo electrónico para {{appName}}",
                    intro: "Sigue este enlace para confirmar {{newEmail}} como el nuevo correo de acceso a tu cuenta de {{appName}}.",
                    outro: "Si no solicitaste cambiar tu correo, puedes ignorar este mensaje."),
                .recoverEmail: .init(
                    subject: "Se cambió tu correo de acceso a {{appName}}",
                    intro: "Tu correo de acceso a {{appName}} se cambió a {{newEmail}}.\n\nSi no solicitaste este cambio, sigue este enlace para restablecer tu correo de acceso.",
                    outro: ""),
            ]),
        "pt-BR": .init(
            greeting: "Olá{{#displayName}}, {{displayName}}{{/displayName}},",
            signoff: "Obrigado,\n\nEquipe {{appName}}",
            actions: [
                .verifyEmail: .init(
                    subject: "Confirme seu e-mail para {{appName}}",
                    intro: "Clique neste link para confirmar seu endereço de e-mail.",
                    outro: "Se você não pediu para confirmar este endereço, ignore este e-mail."),
                .passwordReset: .init(
                    subject: "Redefina sua senha do {{appName}}",
                    intro: "Clique neste link para redefinir a senha do {{appName}} da sua conta {{email}}.",
                    outro: "Se você não pediu para redefinir sua senha, ignore este e-mail."),
                .emailSignIn: .init(
                    subject: "Fazer login no {{appName}}",
                    intro: "Recebemos uma solicitação para fazer login no {{appName}} com este endereço de e-mail. Clique neste link para entrar com sua conta {{email}}.",
                    outro: "Se você não solicitou este link, ignore este e-mail."),
                .verifyAndChangeEmail: .init(
                    subject: "Confirme seu novo e-mail para {{appName}}",
                    intro: "Clique neste link para confirmar {{newEmail}} como o novo e-mail de login da sua conta {{appName}}.",
                    outro: "Se você não pediu para alterar seu e-mail, ignore este e-mail."),
                .recoverEmail: .init(
                    subject: "Seu e-mail de login do {{appName}} foi alterado",
                    intro: "Seu e-mail de login do {{appName}} foi alterado para {{newEmail}}.\n\nSe você não pediu essa alteração, clique neste link para restaurar seu e-mail de login.",
                    outro: ""),
            ]),
        "ja": .init(
            greeting: "{{#displayName}}{{displayName}} 様{{/displayName}}{{^displayName}}お客様{{/displayName}}",
            signoff: "よろしくお願いいたします。\n\n{{appName}} チーム",
            actions: [
                .verifyEmail: .init(
                    subject: "{{appName}} のメールアドレスを確認してください",
                    intro: "メールアドレスを確認するには、次のリンクをクリックしてください。",
                    outro: "このアドレスの確認をリクエストしていない場合は、このメールを無視してください。"),
                .passwordReset: .init(
                    subject: "{{appName}} のパスワードを再設定してください",
                    intro: "{{email}} アカウントの {{appName}} パスワードを再設定するには、次のリンクをクリックしてください。",
                    outro: "パスワードの再設定をリクエストしていない場合は、このメールを無視してください。"),
                .emailSignIn: .init(
                    subject: "{{appName}} へのログイン",
                    intro: "このメールアドレスで {{appName}} にログインするリクエストを受け付けました。{{email}} アカウントでログインするには、次のリンクをクリックしてください。",
                    outro: "このリンクをリクエストしていない場合は、このメールを無視してください。"),
                .verifyAndChangeEmail: .init(
                    subject: "{{appName}} の新しいメールアドレスを確認してください",
                    intro: "{{appName}} アカウントの新しいログイン用メールアドレスとして {{newEmail}} を確認するには、次のリンクをクリックしてください。",
                    outro: "メールアドレスの変更をリクエストしていない場合は、このメールを無視してください。"),
                .recoverEmail: .init(
                    subject: "{{appName}} のログイン用メールアドレスが変更されました",
                    intro: "{{appName}} のログイン用メールアドレスが {{newEmail}} に変更されました。\n\nこの変更に心当たりがない場合は、次のリンクをクリックしてログイン用メールアドレスを元に戻してください。",
                    outro: ""),
            ]),
        "zh-CN": .init(
            greeting: "{{#displayName}}{{displayName}}，{{/displayName}}您好！",
            signoff: "谢谢！\n\n{{appName}} 团队",
            actions: [
                .verifyEmail: .init(
                    subject: "验证您在 {{appName}} 的电子邮件地址",
                    intro: "请点击以下链接验证您的电子邮件地址。",
                    outro: "如果您没有请求验证此地址，请忽略此电子邮件。"),
                .passwordReset: .init(
                    subject: "重置您的 {{appName}} 密码",
                    intro: "请点击以下链接，重置您 {{email}} 账号的 {{appName}} 密码。",
                    outro: "如果您没有请求重置密码，请忽略此电子邮件。"),
                .emailSignIn: .init(
                    subject: "登录 {{appName}}",
                    intro: "我们收到了使用此电子邮件地址登录 {{appName}} 的请求。请点击以下链接，使用您的 {{email}} 账号登录。",
                    outro: "如果您没有请求此链接，请忽略此电子邮件。"),
                .verifyAndChangeEmail: .init(
                    subject: "验证您在 {{appName}} 的新电子邮件地址",
                    intro: "请点击以下链接，将 {{newEmail}} 确认为您 {{appName}} 账号的新登录邮箱。",
                    outro: "如果您没有请求更改电子邮件地址，请忽略此电子邮件。"),
                .recoverEmail: .init(
                    subject: "您的 {{appName}} 登录邮箱已更改",
                    intro: "您的 {{appName}} 登录邮箱已更改为 {{newEmail}}。\n\n如果这不是您本人的操作，请点击以下链接恢复您的登录邮箱。",
                    outro: ""),
            ]),
        "zh-TW": .init(
            greeting: "{{#displayName}}{{displayName}}，{{/displayName}}您好：",
            signoff: "謝謝！\n\n{{appName}} 團隊",
            actions: [
                .verifyEmail: .init(
                    subject: "驗證您在 {{appName}} 的電子郵件地址",
                    intro: "請點選以下連結驗證您的電子郵件地址。",
                    outro: "如果您沒有要求驗證此地址，請忽略這封電子郵件。"),
                .passwordReset: .init(
                    subject: "重設您的 {{appName}} 密碼",
                    intro: "請點選以下連結，重設您 {{email}} 帳戶的 {{appName}} 密碼。",
                    outro: "如果您沒有要求重設密碼，請忽略這封電子郵件。"),
                .emailSignIn: .init(
                    subject: "登入 {{appName}}",
                    intro: "我們收到使用此電子郵件地址登入 {{appName}} 的要求。請點選以下連結，以您的 {{email}} 帳戶登入。",
                    outro: "如果您沒有要求此連結，請忽略這封電子郵件。"),
                .verifyAndChangeEmail: .init(
                    subject: "驗證您在 {{appName}} 的新電子郵件地址",
                    intro: "請點選以下連結，將 {{newEmail}} 確認為您 {{appName}} 帳戶的新登入電子郵件地址。",
                    outro: "如果您沒有要求變更電子郵件地址，請忽略這封電子郵件。"),
                .recoverEmail: .init(
                    subject: "您的 {{appName}} 登入電子郵件地址已變更",
                    intro: "您的 {{appName}} 登入電子郵件地址已變更為 {{newEmail}}。\n\n如果這不是您本人的操作，請點選以下連結還原您的登入電子郵件地址。",
                    outro: ""),
            ]),
        "ko": .init(
            greeting: "{{#displayName}}{{displayName}}님, {{/displayName}}안녕하세요.",
            signoff: "감사합니다.\n\n{{appName}} 팀 드림",
            actions: [
                .verifyEmail: .init(
                    subject: "{{appName}} 이메일 주소를 인증하세요",
                    intro: "다음 링크를 클릭하여 이메일 주소를 인증하세요.",
                    outro: "이 주소의 인증을 요청하지 않았다면 이 이메일을 무시하셔도 됩니다."),
                .passwordReset: .init(
                    subject: "{{appName}} 비밀번호를 재설정하세요",
                    intro: "다음 링크를 클릭하여 {{email}} 계정의 {{appName}} 비밀번호를 재설정하세요.",
                    outro: "비밀번호 재설정을 요청하지 않았다면 이 이메일을 무시하셔도 됩니다."),
                .emailSignIn: .init(
                    subject: "{{appName}}에 로그인",
                    intro: "이 이메일 주소로 {{appName}}에 로그인하라는 요청을 받았습니다. 다음 링크를 클릭하여 {{email}} 계정으로 로그인하세요.",
                    outro: "이 링크를 요청하지 않았다면 이 이메일을 무시하셔도 됩니다."),
                .verifyAndChangeEmail: .init(
                    subject: "{{appName}}의 새 이메일 주소를 인증하세요",
                    intro: "다음 링크를 클릭하여 {{newEmail}}을(를) {{appName}} 계정의 새 로그인 이메일로 인증하세요.",
                    outro: "이메일 변경을 요청하지 않았다면 이 이메일을 무시하셔도 됩니다."),
                .recoverEmail: .init(
                    subject: "{{appName}} 로그인 이메일이 변경되었습니다",
                    intro: "{{appName}} 로그인 이메일이 {{newEmail}}(으)로 변경되었습니다.\n\n변경을 요청하지 않았다면 다음 링크를 클릭하여 로그인 이메일을 복원하세요.",
                    outro: ""),
            ]),
    ]
}
