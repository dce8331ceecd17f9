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
