import HearthCore

/// The words of the hosted action page, per language. `{{email}}` and `{{newEmail}}` are filled in (and escaped)
/// when the page is rendered.
struct ActionPageText: Sendable {
    var resetTitle, newPassword, save, passwordChanged, weakPassword: String
    var verifiedTitle, verified: String
    var changedTitle, changed: String
    var recoverTitle, recoverPrompt, restore, recovered: String
    var signInTitle, signInElsewhere: String
    var invalidTitle, invalidLink, formExpired, continueLabel: String

    static func best(for requested: String?) -> (locale: String, text: ActionPageText) {
        let locale = LocaleMatch.best(for: requested, among: Array(locales.keys)) ?? "en"
        return (locale, locales[locale]!)
    }

    static let locales: [String: ActionPageText] = [
        "en": .init(
            resetTitle: "Reset your password", newPassword: "New password", save: "Save",
            passwordChanged: "Your password has been changed. You can now sign in with your new password.",
            weakPassword: "Choose a password of at least 6 characters.",
            verifiedTitle: "Your email has been verified", verified: "You can now sign in with {{email}}.",
            changedTitle: "Your sign-in email has been changed", changed: "You can now sign in with {{email}}.",
            recoverTitle: "Restore your sign-in email",
            recoverPrompt: "Your sign-in email was changed to {{newEmail}}. If you didn’t make this change, restore {{email}}.",
            restore: "Restore my email",
            recovered: "Your sign-in email is {{email}} again. If you didn’t make the change, also change your password.",
            signInTitle: "Finish signing in",
            signInElsewhere: "Open this link on the device where you asked to sign in.",
            invalidTitle: "Try again", invalidLink: "This link is invalid, has expired, or has already been used. Ask for a new one.",
            formExpired: "This form has expired. Open the link from your email again.", continueLabel: "Continue"),
        "fr": .init(
            resetTitle: "Réinitialisez votre mot de passe", newPassword: "Nouveau mot de passe", save: "Enregistrer",
            passwordChanged: "Votre mot de passe a été modifié. Vous pouvez maintenant vous connecter avec le nouveau.",
            weakPassword: "Choisissez un mot de passe d’au moins 6 caractères.",
            verifiedTitle: "Votre adresse e-mail a été validée", verified: "Vous pouvez maintenant vous connecter avec {{email}}.",
            changedTitle: "Votre adresse de connexion a été modifiée", changed: "Vous pouvez maintenant vous connecter avec {{email}}.",
            recoverTitle: "Rétablir votre adresse de connexion",
            recoverPrompt: "Votre adresse de connexion est devenue {{newEmail}}. Si vous n’êtes pas à l’origine de ce changement, rétablissez {{email}}.",
            restore: "Rétablir mon adresse",
            recovered: "Votre adresse de connexion est de nouveau {{email}}. Si vous n’êtes pas à l’origine du changement, changez aussi votre mot de passe.",
            signInTitle: "Terminer la connexion",
            signInElsewhere: "Ouvrez ce lien sur l’appareil depuis lequel vous avez demandé à vous connecter.",
            invalidTitle: "Réessayez", invalidLink: "Ce lien est invalide, a expiré ou a déjà été utilisé. Demandez-en un nouveau.",
            formExpired: "Ce formulaire a expiré. Ouvrez à nouveau le lien reçu par e-mail.", continueLabel: "Continuer"),
        "de": .init(
            resetTitle: "Passwort zurücksetzen", newPassword: "Neues Passwort", save: "Speichern",
            passwordChanged: "Ihr Passwort wurde geändert. Sie können sich jetzt mit dem neuen Passwort anmelden.",
            weakPassword: "Wählen Sie ein Passwort mit mindestens 6 Zeichen.",
            verifiedTitle: "Ihre E-Mail-Adresse wurde bestätigt", verified: "Sie können sich jetzt mit {{email}} anmelden.",
            changedTitle: "Ihre Anmelde-E-Mail-Adresse wurde geändert", changed: "Sie können sich jetzt mit {{email}} anmelden.",
            recoverTitle: "Anmelde-E-Mail-Adresse wiederherstellen",
            recoverPrompt: "Ihre Anmelde-E-Mail-Adresse wurde in {{newEmail}} geändert. Wenn Sie das nicht waren, stellen Sie {{email}} wieder her.",
            restore: "Adresse wiederherstellen",
            recovered: "Ihre Anmelde-E-Mail-Adresse ist wieder {{email}}. Wenn Sie die Änderung nicht veranlasst haben, ändern Sie auch Ihr Passwort.",
            signInTitle: "Anmeldung abschließen",
            signInElsewhere: "Öffnen Sie diesen Link auf dem Gerät, auf dem Sie die Anmeldung angefordert haben.",
            invalidTitle: "Bitte erneut versuchen", invalidLink: "Dieser Link ist ungültig, abgelaufen oder wurde bereits verwendet. Fordern Sie einen neuen an.",
            formExpired: "Dieses Formular ist abgelaufen. Öffnen Sie den Link aus der E-Mail erneut.", continueLabel: "Weiter"),
        "es": .init(
            resetTitle: "Restablece tu contraseña", newPassword: "Nueva contraseña", save: "Guardar",
            passwordChanged: "Se cambió tu contraseña. Ya puedes iniciar sesión con la nueva.",
            weakPassword: "Elige una contraseña de al menos 6 caracteres.",
            verifiedTitle: "Se verificó tu correo electrónico", verified: "Ya puedes iniciar sesión con {{email}}.",
            changedTitle: "Se cambió tu correo de acceso", changed: "Ya puedes iniciar sesión con {{email}}.",
            recoverTitle: "Restablece tu correo de acceso",
            recoverPrompt: "Tu correo de acceso se cambió a {{newEmail}}. Si no hiciste este cambio, restablece {{email}}.",
            restore: "Restablecer mi correo",
            recovered: "Tu correo de acceso vuelve a ser {{email}}. Si no hiciste el cambio, cambia también tu contraseña.",
            signInTitle: "Termina de iniciar sesión",
            signInElsewhere: "Abre este enlace en el dispositivo desde el que pediste iniciar sesión.",
            invalidTitle: "Inténtalo de nuevo", invalidLink: "Este enlace no es válido, caducó o ya se usó. Solicita uno nuevo.",
            formExpired: "Este formulario caducó. Vuelve a abrir el enlace del correo.", continueLabel: "Continuar"),
        "pt-BR": .init(
            resetTitle: "Redefina sua senha", newPassword: "Nova senha", save: "Salvar",
            passwordChanged: "Sua senha foi alterada. Agora você pode fazer login com a nova senha.",
            weakPassword: "Escolha uma senha com pelo menos 6 caracteres.",
            verifiedTitle: "Seu e-mail foi confirmado", verified: "Agora você pode fazer login com {{email}}.",
            changedTitle: "Seu e-mail de login foi alterado", changed: "Agora você pode fazer login com {{email}}.",
            recoverTitle: "Restaure seu e-mail de login",
            recoverPrompt: "Seu e-mail de login foi alterado para {{newEmail}}. Se você não fez essa alteração, restaure {{email}}.",
            restore: "Restaurar meu e-mail",
            recovered: "Seu e-mail de login voltou a ser {{email}}. Se você não fez a alteração, altere também sua senha.",
            signInTitle: "Conclua o login",
            signInElsewhere: "Abra este link no dispositivo em que você pediu para fazer login.",
            invalidTitle: "Tente novamente", invalidLink: "Este link é inválido, expirou ou já foi usado. Peça um novo.",
            formExpired: "Este formulário expirou. Abra novamente o link do e-mail.", continueLabel: "Continuar"),
        "ja": .init(
            resetTitle: "パスワードの再設定", newPassword: "新しいパスワード", save: "保存",
            passwordChanged: "パスワードを変更しました。新しいパスワードでログインできます。",
            weakPassword: "6 文字以上のパスワードを入力してください。",
            verifiedTitle: "メールアドレスを確認しました", verified: "{{email}} でログインできるようになりました。",
            changedTitle: "ログイン用メールアドレスを変更しました", changed: "{{email}} でログインできるようになりました。",
            recoverTitle: "ログイン用メールアドレスを元に戻す",
            recoverPrompt: "ログイン用メールアドレスが {{newEmail}} に変更されました。心当たりがない場合は {{email}} に戻してください。",
            restore: "メールアドレスを元に戻す",
            recovered: "ログイン用メールアドレスを {{email}} に戻しました。変更に心当たりがない場合は、パスワードも変更してください。",
            signInTitle: "ログインを完了する",
            signInElsewhere: "ログインをリクエストした端末でこのリンクを開いてください。",
            invalidTitle: "もう一度お試しください", invalidLink: "このリンクは無効か、有効期限が切れているか、すでに使用されています。新しいリンクをリクエストしてください。",
            formExpired: "このフォームの有効期限が切れました。メールのリンクをもう一度開いてください。", continueLabel: "続行"),
        "zh-CN": .init(
            resetTitle: "重置密码", newPassword: "新密码", save: "保存",
            passwordChanged: "您的密码已更改，现在可以使用新密码登录。",
            weakPassword: "请设置至少 6 个字符的密码。",
            verifiedTitle: "您的电子邮件地址已验证", verified: "现在可以使用 {{email}} 登录。",
            changedTitle: "您的登录邮箱已更改", changed: "现在可以使用 {{email}} 登录。",
            recoverTitle: "恢复您的登录邮箱",
            recoverPrompt: "您的登录邮箱已更改为 {{newEmail}}。如果这不是您本人的操作，请恢复为 {{email}}。",
            restore: "恢复我的邮箱",
            recovered: "您的登录邮箱已恢复为 {{email}}。如果更改不是您本人的操作，请同时更改密码。",
            signInTitle: "完成登录",
            signInElsewhere: "请在您请求登录的设备上打开此链接。",
            invalidTitle: "请重试", invalidLink: "此链接无效、已过期或已被使用。请重新请求。",
            formExpired: "此表单已过期。请重新打开邮件中的链接。", continueLabel: "继续"),
        "zh-TW": .init(
            resetTitle: "重設密碼", newPassword: "新密碼", save: "儲存",
            passwordChanged: "您的密碼已變更，現在可以使用新密碼登入。",
            weakPassword: "請設定至少 6 個字元的密碼。",
            verifiedTitle: "您的電子郵件地址已驗證", verified: "現在可以使用 {{email}} 登入。",
            changedTitle: "您的登入電子郵件地址已變更", changed: "現在可以使用 {{email}} 登入。",
            recoverTitle: "還原您的登入電子郵件地址",
            recoverPrompt: "您的登入電子郵件地址已變更為 {{newEmail}}。如果這不是您本人的操作，請還原為 {{email}}。",
            restore: "還原我的電子郵件地址",
            recovered: "您的登入電子郵件地址已還原為 {{email}}。如果變更不是您本人的操作，請同時變更密碼。",
            signInTitle: "完成登入",
            signInElsewhere: "請在您要求登入的裝置上開啟此連結。",
            invalidTitle: "請再試一次", invalidLink: "此連結無效、已過期或已使用過。請重新要求。",
            formExpired: "此表單已過期。請重新開啟電子郵件中的連結。", continueLabel: "繼續"),
        "ko": .init(
            resetTitle: "비밀번호 재설정", newPassword: "새 비밀번호", save: "저장",
            passwordChanged: "비밀번호가 변경되었습니다. 이제 새 비밀번호로 로그인할 수 있습니다.",
            weakPassword: "6자 이상의 비밀번호를 입력하세요.",
            verifiedTitle: "이메일 주소가 인증되었습니다", verified: "이제 {{email}}(으)로 로그인할 수 있습니다.",
            changedTitle: "로그인 이메일이 변경되었습니다", changed: "이제 {{email}}(으)로 로그인할 수 있습니다.",
            recoverTitle: "로그인 이메일 복원",
            recoverPrompt: "로그인 이메일이 {{newEmail}}(으)로 변경되었습니다. 직접 변경하지 않았다면 {{email}}(으)로 복원하세요.",
            restore: "이메일 복원",
            recovered: "로그인 이메일이 다시 {{email}}(으)로 설정되었습니다. 직접 변경하지 않았다면 비밀번호도 변경하세요.",
            signInTitle: "로그인 완료",
            signInElsewhere: "로그인을 요청한 기기에서 이 링크를 여세요.",
            invalidTitle: "다시 시도하세요", invalidLink: "이 링크는 유효하지 않거나 만료되었거나 이미 사용되었습니다. 새 링크를 요청하세요.",
            formExpired: "이 양식이 만료되었습니다. 이메일의 링크를 다시 여세요.", continueLabel: "계속"),
    ]
}
