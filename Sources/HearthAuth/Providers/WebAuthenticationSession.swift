import Foundation

/// Hearth's redirect to an app: `app-<id>://firebaseauth/link?deep_link_id=<…/__/auth/callback?…&link=<handler URL>>`.
enum AppCallback {
    /// The handler URL carrying the provider's answer, which `signInWithIdp` takes as `requestUri`.
    static func link(from callback: URL) -> String? {
        let outer = URLComponents(url: callback, resolvingAgainstBaseURL: false)?.queryItems ?? []
        guard let deepLink = outer.first(where: { $0.name == "deep_link_id" })?.value else { return nil }
        return URLComponents(string: deepLink)?.queryItems?.first(where: { $0.name == "link" })?.value
    }
}

#if canImport(AuthenticationServices) && (os(iOS) || os(macOS))
import AuthenticationServices

/// Apple platforms: the provider's page in `ASWebAuthenticationSession`, which hands back Hearth's
/// `app-<bundle id>://firebaseauth/link?deep_link_id=…` redirect itself — no URL scheme to register, no loopback.
@MainActor
final class WebAuthenticationSessionFlow: NSObject {
    private var session: ASWebAuthenticationSession?

    /// The `link` (the handler URL carrying the provider's answer) from the session's callback.
    static func run(_ url: URL, callbackScheme: String) async throws -> String {
        let flow = WebAuthenticationSessionFlow()
        let callback: URL = try await withCheckedThrowingContinuation { continuation in
            let session = ASWebAuthenticationSession(url: url, callbackURLScheme: callbackScheme) { callback, error in
                if let callback {
                    continuation.resume(returning: callback)
                } else {
                    continuation.resume(throwing: AuthErrorFactory.make(.webContextCancelled, underlying: error))
                }
            }
            session.presentationContextProvider = flow
            flow.session = session
            if !session.start() {
                continuation.resume(throwing: AuthErrorFactory.make(.webContextAlreadyPresented))
            }
        }
        flow.session = nil
        guard let link = AppCallback.link(from: callback) else {
            throw AuthErrorFactory.make(.webSignInUserInteractionFailure, detail: "The sign-in page returned no result.")
        }
        return link
    }
}

extension WebAuthenticationSessionFlow: @preconcurrency ASWebAuthenticationPresentationContextProviding {
    func presentationAnchor(for session: ASWebAuthenticationSession) -> ASPresentationAnchor { ASPresentationAnchor() }
}
#endif
