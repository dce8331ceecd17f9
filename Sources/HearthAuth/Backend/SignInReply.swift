import Foundation
import HearthWire

/// What the SDK acts on in any sign-in answer, whichever endpoint gave it: the tokens, or a second-factor
/// challenge, read from any reply by its wire names (``SignInAnswer``).
struct SignInReply: Sendable {
    var localId: String?
    var idToken: String?
    var refreshToken: String?
    var expiresIn: String?
    var mfaPendingCredential: String?
    var mfaInfo: [MFAInfoWire] = []

    init(localId: String?, idToken: String?, refreshToken: String?, expiresIn: String?,
         mfaPendingCredential: String? = nil, mfaInfo: [MFAInfoWire]? = nil) {
        // Replies are read with absent fields as "" (proto3's defaults): "" is no value.
        func value(_ text: String?) -> String? { text?.isEmpty == false ? text : nil }
        self.localId = value(localId)
        self.idToken = value(idToken)
        self.refreshToken = value(refreshToken)
        self.expiresIn = value(expiresIn)
        self.mfaPendingCredential = value(mfaPendingCredential)
        self.mfaInfo = mfaInfo ?? []
    }
}

extension SignInReply: Decodable {
    enum CodingKeys: String, CodingKey {
        case localId, idToken, refreshToken, expiresIn, mfaPendingCredential, mfaInfo
    }

    init(from decoder: any Decoder) throws {
        let reply = try decoder.container(keyedBy: CodingKeys.self)
        self.init(localId: try reply.decodeIfPresent(String.self, forKey: .localId),
                  idToken: try reply.decodeIfPresent(String.self, forKey: .idToken),
                  refreshToken: try reply.decodeIfPresent(String.self, forKey: .refreshToken),
                  expiresIn: try reply.decodeIfPresent(String.self, forKey: .expiresIn),
                  mfaPendingCredential: try reply.decodeIfPresent(String.self, forKey: .mfaPendingCredential),
                  mfaInfo: try reply.decodeIfPresent([MFAInfoWire].self, forKey: .mfaInfo))
    }
}

/// A reply that can finish a sign-in. Every sign-in reply names its tokens and challenge with the same wire fields,
/// so the conformance is one reading of those fields, not one per reply type.
protocol SignInAnswer: Sendable, Encodable {}

extension SignInAnswer {
    var signIn: SignInReply {
        // Read back through the wire names the reply was decoded from; encoding a decoded reply cannot fail.
        (try? JSONDecoder().decode(SignInReply.self, from: JSONEncoder().encode(self)))
            ?? SignInReply(localId: nil, idToken: nil, refreshToken: nil, expiresIn: nil)
    }
}

extension SignUpResponse: SignInAnswer {}
extension SignInWithPasswordResponse: SignInAnswer {}
extension SignInWithCustomTokenResponse: SignInAnswer {}
extension SignInWithEmailLinkResponse: SignInAnswer {}
extension SignInWithIdpResponse: SignInAnswer {}
extension SignInWithPhoneNumberResponse: SignInAnswer {}
extension SignInWithGameCenterResponse: SignInAnswer {}
extension UpdateAccountResponse: SignInAnswer {}
extension MFATokensResponse: SignInAnswer {}
