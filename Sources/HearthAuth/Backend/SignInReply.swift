import HearthWire

/// What the SDK acts on in any sign-in answer, whichever endpoint gave it: the tokens, or a second-factor
/// challenge. Each typed reply says how it maps (``SignInAnswer``).
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

/// A reply that can finish a sign-in.
protocol SignInAnswer: Sendable {
    var signIn: SignInReply { get }
}

extension SignUpResponse: SignInAnswer {
    var signIn: SignInReply { SignInReply(localId: localId, idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn) }
}

extension SignInWithPasswordResponse: SignInAnswer {
    var signIn: SignInReply {
        SignInReply(localId: localId, idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn,
                    mfaPendingCredential: mfaPendingCredential, mfaInfo: mfaInfo)
    }
}

extension SignInWithCustomTokenResponse: SignInAnswer {
    var signIn: SignInReply {
        SignInReply(localId: nil, idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn,
                    mfaPendingCredential: mfaPendingCredential, mfaInfo: mfaInfo)
    }
}

extension SignInWithEmailLinkResponse: SignInAnswer {
    var signIn: SignInReply {
        SignInReply(localId: localId, idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn,
                    mfaPendingCredential: mfaPendingCredential, mfaInfo: mfaInfo)
    }
}

extension SignInWithIdpResponse: SignInAnswer {
    var signIn: SignInReply {
        SignInReply(localId: localId, idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn,
                    mfaPendingCredential: mfaPendingCredential, mfaInfo: mfaInfo)
    }
}

extension SignInWithPhoneNumberResponse: SignInAnswer {
    var signIn: SignInReply {
        SignInReply(localId: localId, idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn,
                    mfaPendingCredential: mfaPendingCredential, mfaInfo: mfaInfo)
    }
}

extension SignInWithGameCenterResponse: SignInAnswer {
    var signIn: SignInReply {
        SignInReply(localId: localId, idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn,
                    mfaPendingCredential: mfaPendingCredential, mfaInfo: mfaInfo)
    }
}

extension UpdateAccountResponse: SignInAnswer {
    var signIn: SignInReply { SignInReply(localId: localId, idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn) }
}

extension MFATokensResponse: SignInAnswer {
    var signIn: SignInReply { SignInReply(localId: nil, idToken: idToken, refreshToken: refreshToken, expiresIn: expiresIn) }
}
