import HearthCore

/// The endpoints of the built-in providers, used where a project's config does not override them.
enum ProviderDefaults {
    static func issuer(_ providerID: String) -> String? {
        switch providerID {
        case "google.com": "https://accounts.google.com"
        case "apple.com": "https://appleid.apple.com"
        case "microsoft.com": "https://login.microsoftonline.com/common/v2.0"
        default: nil
        }
    }

    static func userInfo(_ providerID: String) -> String? {
        switch providerID {
        case "facebook.com": "https://graph.facebook.com/me?fields=id,name,email,first_name,last_name,picture"
        case "github.com": "https://api.github.com/user"
        case "twitter.com": "https://api.twitter.com/2/users/me?user.fields=profile_image_url"
        default: nil
        }
    }

    static func emails(_ providerID: String) -> String? {
        providerID == "github.com" ? "https://api.github.com/user/emails" : nil
    }
}

extension ProviderDefaults {
    static func authorization(_ providerID: String) -> String? {
        switch providerID {
        case "google.com": "https://accounts.google.com/o/oauth2/v2/auth"
        case "apple.com": "https://appleid.apple.com/auth/authorize"
        case "facebook.com": "https://www.facebook.com/v19.0/dialog/oauth"
        case "github.com": "https://github.com/login/oauth/authorize"
        case "twitter.com": "https://twitter.com/i/oauth2/authorize"
        default: nil
        }
    }

    static func token(_ providerID: String) -> String? {
        switch providerID {
        case "google.com": "https://oauth2.googleapis.com/token"
        case "apple.com": "https://appleid.apple.com/auth/token"
        case "facebook.com": "https://graph.facebook.com/v19.0/oauth/access_token"
        case "github.com": "https://github.com/login/oauth/access_token"
        case "twitter.com": "https://api.twitter.com/2/oauth2/token"
        default: nil
        }
    }

    /// How the provider must answer the hosted handler: Apple posts the answer (with the user's name, the first
    /// time), and requires it when the name or email is asked for.
    static func responseMode(_ providerID: String) -> String? {
        providerID == "apple.com" ? "form_post" : nil
    }

    static func revoke(_ providerID: String) -> String? {
        providerID == "apple.com" ? "https://appleid.apple.com/auth/revoke" : nil
    }

    static func scopes(_ providerID: String) -> [String] {
        switch providerID {
        case "facebook.com": ["email", "public_profile"]
        case "github.com": ["read:user", "user:email"]
        case "twitter.com": ["users.read", "tweet.read"]
        default: ["openid", "email", "profile"]
        }
    }
}
