/// `clientType`, which several client calls carry (which SDK sends them). Hearth does not act on it, but reads it
/// as Google does, so a value outside the enum is refused instead of silently passing.
public enum ClientType: String, Codable, Sendable, ProtoEnum {
    case unspecified = "CLIENT_TYPE_UNSPECIFIED", web = "CLIENT_TYPE_WEB", android = "CLIENT_TYPE_ANDROID",
         ios = "CLIENT_TYPE_IOS"
    public static let protoNames = ["CLIENT_TYPE_UNSPECIFIED", "CLIENT_TYPE_WEB", "CLIENT_TYPE_ANDROID", "CLIENT_TYPE_IOS"]
}

/// `recaptchaVersion`, beside `clientType`: read for its type only (Hearth has no reCAPTCHA).
public enum RecaptchaVersion: String, Codable, Sendable, ProtoEnum {
    case unspecified = "RECAPTCHA_VERSION_UNSPECIFIED", enterprise = "RECAPTCHA_ENTERPRISE"
    public static let protoNames = ["RECAPTCHA_VERSION_UNSPECIFIED", "RECAPTCHA_ENTERPRISE"]
}
