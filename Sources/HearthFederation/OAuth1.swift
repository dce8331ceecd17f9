import Crypto
import Foundation
import HearthCore

/// OAuth 1.0a request signing (RFC 5849, HMAC-SHA1): what Twitter's v1.1 API requires for a user's
/// `oauth_token` + `oauth_token_secret`.
///
/// ```swift
/// let header = OAuth1.authorization(method: "GET", url: url, consumerKey: key, consumerSecret: secret,
///                                   token: token, tokenSecret: tokenSecret)
/// ```
enum OAuth1 {
    /// The `Authorization` header for one request. `token` is empty when asking for a request token; `extra` adds
    /// protocol parameters (`oauth_callback`, `oauth_verifier`).
    static func authorization(method: String, url: String, consumerKey: String, consumerSecret: String,
                              token: String, tokenSecret: String, extra: [String: String] = [:],
                              nonce: String = SecureRandom.token(byteCount: 16),
                              timestamp: Int = Int(Date().timeIntervalSince1970)) -> String {
        var oauth: [String: String] = [
            "oauth_consumer_key": consumerKey, "oauth_nonce": nonce.filter { $0.isLetter || $0.isNumber },
            "oauth_signature_method": "HMAC-SHA1", "oauth_timestamp": String(timestamp), "oauth_version": "1.0",
        ]
        if !token.isEmpty { oauth["oauth_token"] = token }
        oauth.merge(extra) { _, new in new }
        let components = URLComponents(string: url)
        var parameters = (components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }
        parameters += oauth.map { ($0.key, $0.value) }
        let escaped: [(name: String, value: String)] = parameters.map { pair in
            (name: FormEncoding.escape(pair.0), value: FormEncoding.escape(pair.1))
        }
        let sorted = escaped.sorted { a, b in a.name == b.name ? a.value < b.value : a.name < b.name }
        let normalized = sorted.map { pair in pair.name + "=" + pair.value }.joined(separator: "&")
        var base = components ?? URLComponents()
        base.query = nil
        base.fragment = nil
        let baseURL = base.string ?? url
        let signatureBase = [method.uppercased(), FormEncoding.escape(baseURL), FormEncoding.escape(normalized)]
            .joined(separator: "&")
        let key = FormEncoding.escape(consumerSecret) + "&" + FormEncoding.escape(tokenSecret)
        let mac = HMAC<Insecure.SHA1>.authenticationCode(for: Data(signatureBase.utf8), using: SymmetricKey(data: Data(key.utf8)))
        oauth["oauth_signature"] = Data(mac).base64EncodedString()
        return "OAuth " + oauth.sorted { $0.key < $1.key }
            .map { "\($0.key)=\"\(FormEncoding.escape($0.value))\"" }.joined(separator: ", ")
    }
}
