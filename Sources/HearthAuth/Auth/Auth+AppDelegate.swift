import Foundation

/// How an APNs token was issued (FirebaseAuth's `AuthAPNSTokenType`).
public enum AuthAPNSTokenType: Int, Sendable {
    case unknown, sandbox, prod
}

/// FirebaseAuth's app-delegate hooks, so the plumbing of an app's `AppDelegate` compiles unchanged. Firebase uses
/// them to verify the app with a silent push or reCAPTCHA before sending an SMS, and to receive web sign-ins; Hearth
/// asks for no app verification and receives web sign-ins through `ASWebAuthenticationSession` or its loopback
/// listener, so they have little to do.
///
/// ```swift
/// func application(_ app: UIApplication, open url: URL, options: [UIApplication.OpenURLOptionsKey: Any] = [:]) -> Bool {
///     if Auth.auth().canHandle(url) { return true }
///     return handleMyOwnLink(url)
/// }
/// ```
extension Auth {
    /// Whether `url` is one of Hearth's sign-in callbacks (`app-…://firebaseauth/link?deep_link_id=…`), which the
    /// app should not treat as its own link. The sign-in itself is finished by the session that started it.
    public func canHandle(_ url: URL) -> Bool {
        url.scheme?.hasPrefix("app-") == true && url.host == "firebaseauth" && AppCallback.link(from: url) != nil
    }

    /// Firebase's silent-push verification; Hearth sends none, so no notification is its own.
    public func canHandleNotification(_ userInfo: [AnyHashable: Any]) -> Bool { false }

    /// The device's APNs token, kept for parity (Hearth verifies no app with it).
    public var apnsToken: Data? {
        get { core.apnsToken }
        set { core.apnsToken = newValue }
    }

    /// Sets ``apnsToken``; `type` is accepted and unused.
    public func setAPNSToken(_ token: Data, type: AuthAPNSTokenType) {
        apnsToken = token
    }
}

#if os(iOS)
import UIKit

/// FirebaseAuth's `UIApplicationDelegate` and `UISceneDelegate` forwards (for apps that turn off method
/// swizzling). Never compiled on the machines that build Hearth (Linux); parse-checked by `scripts/parity.py parse`.
extension Auth {
    @MainActor
    public func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {
        setAPNSToken(deviceToken, type: .unknown)
    }

    @MainActor
    public func application(_ application: UIApplication, didFailToRegisterForRemoteNotificationsWithError error: any Error) {}

    /// No silent push is Hearth's: the handler is told there was no data.
    @MainActor
    public func application(_ application: UIApplication, didReceiveRemoteNotification userInfo: [AnyHashable: Any],
                            fetchCompletionHandler completionHandler: @escaping (UIBackgroundFetchResult) -> Void) {
        completionHandler(.noData)
    }

    @MainActor
    public func application(_ application: UIApplication, open url: URL,
                            options: [UIApplication.OpenURLOptionsKey: Any]) -> Bool {
        canHandle(url)
    }

    /// Hearth's sign-in callbacks reach `ASWebAuthenticationSession` directly, so a scene has none to pass on.
    @MainActor
    public func scene(_ scene: UIScene, openURLContexts URLContexts: Set<UIOpenURLContext>) {}
}
#endif
