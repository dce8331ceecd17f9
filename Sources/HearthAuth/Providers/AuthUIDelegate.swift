import Foundation

/// Shows a web page to the user: the provider's sign-in page (Hearth's `/__/auth/handler`), or an authenticator
/// app's link. Works on every platform: a browser tab, a web view, or a test driver. Set one as
/// ``Auth/defaultUIDelegate``; where FirebaseAuth has no `AuthUIDelegate` (Linux, macOS, watchOS) it is also what
/// `uiDelegate` parameters take.
///
/// ```swift
/// final class Opener: AuthURLOpener {
///     func open(_ url: URL) async throws { NSWorkspace.shared.open(url) }
/// }
/// Auth.auth().defaultUIDelegate = Opener()
/// let credential = try await OAuthProvider(providerID: "github.com").credential(with: nil)
/// ```
public protocol AuthURLOpener: AnyObject, Sendable {
    /// Opens `url` for the user; a sign-in's result comes back on a loopback redirect.
    func open(_ url: URL) async throws
}

#if os(iOS) || os(tvOS) || os(visionOS)
import UIKit

/// FirebaseAuth's `AuthUIDelegate`, requirement for requirement, so a view controller that conforms for
/// FirebaseAuth conforms here. HearthAuth's web sign-in uses `ASWebAuthenticationSession`, which presents itself:
/// the delegate is accepted and never asked to present anything.
public protocol AuthUIDelegate: NSObjectProtocol {
    func present(_ viewControllerToPresent: UIViewController, animated flag: Bool, completion: (() -> Void)?)
    func dismiss(animated flag: Bool, completion: (() -> Void)?)
}

/// What opens a page for a `uiDelegate` argument: nothing on UIKit platforms (see ``AuthUIDelegate``).
func urlOpener(_ delegate: (any AuthUIDelegate)?) -> (any AuthURLOpener)? { nil }
#else
/// Where FirebaseAuth has no `AuthUIDelegate`, `uiDelegate` parameters take an ``AuthURLOpener``.
public typealias AuthUIDelegate = AuthURLOpener

/// What opens a page for a `uiDelegate` argument: the delegate itself.
func urlOpener(_ delegate: (any AuthUIDelegate)?) -> (any AuthURLOpener)? { delegate }
#endif

/// Opens URLs with the system browser: `$BROWSER` if set, else `xdg-open` (Linux) or `open` (macOS).
public final class SystemBrowser: AuthURLOpener {
    public init() {}

    public func open(_ url: URL) async throws {
        #if os(Linux) || os(macOS)
        let process = Process()
        let browser = ProcessInfo.processInfo.environment["BROWSER"]
        #if os(Linux)
        let command = browser ?? "xdg-open"
        #else
        let command = browser ?? "open"
        #endif
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [command, url.absoluteString]
        do { try process.run() } catch {
            throw AuthErrorFactory.make(.webContextCancelled,
                                        detail: "Could not start \(command) to open the sign-in page; set BROWSER or set Auth.defaultUIDelegate.",
                                        underlying: error)
        }
        #else
        throw AuthErrorFactory.make(.webContextCancelled, detail: "Set Auth.defaultUIDelegate to open the sign-in page.")
        #endif
    }
}

