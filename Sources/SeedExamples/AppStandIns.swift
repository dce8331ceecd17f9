import Foundation
import HearthAuth

// The apps' own pieces the guides lean on — a view controller's prompts, GoogleSignIn's and Facebook Login's
// token holders, a table cell — as small stand-ins, so the snippets compile as written. A test answers the prompts
// and hands in real tokens from a test identity provider.

/// The guides' `isMFAEnabled` flag.
public var isMFAEnabled = true

/// GoogleSignIn's `GIDGoogleUser` as the guides read it (`user.authentication.idToken`).
public final class GIDGoogleUser {
    public var authentication: GIDAuthentication?
    public init(idToken: String, accessToken: String) {
        authentication = GIDAuthentication(idToken: idToken, accessToken: accessToken)
    }
}

public final class GIDAuthentication {
    public var idToken: String!
    public var accessToken: String
    init(idToken: String, accessToken: String) {
        self.idToken = idToken
        self.accessToken = accessToken
    }
}

/// Facebook Login's `AccessToken.current`.
public final class AccessToken {
    nonisolated(unsafe) public static var current: AccessToken?
    public let tokenString: String
    public init(tokenString: String) { self.tokenString = tokenString }
}

/// A table row (`indexPath.row`) and cell (`cell?.textLabel?.text`).
public struct IndexPath { public var row: Int; public init(row: Int) { self.row = row } }
public final class UILabel { public var text: String? }
public final class UITableViewCell {
    public var textLabel: UILabel? = UILabel()
    public var detailTextLabel: UILabel? = UILabel()
    public init() {}
}

/// What the guides' view controllers do besides calling Auth: prompts, messages, navigation. The test answers
/// prompts with ``answer`` and waits for a snippet to end with ``run(_:)``; an end is a navigation pop, a message
/// prompt, or a call to ``finish(_:)`` where the guide wrote `// ...`.
@MainActor
open class GuideViewController {
    @MainActor public final class NavigationController {
        weak var owner: GuideViewController?
        public func popViewController(animated: Bool) { owner?.finish(nil) }
    }

    public struct Message: Error, CustomStringConvertible { public let description: String }

    public let navigationController: NavigationController?
    public var answer: (String) async -> String? = { _ in nil }
    public private(set) var messages: [String] = []
    public private(set) var prompts: [String] = []
    private var waiter: CheckedContinuation<(any Error)?, Never>?
    private var runs = 0

    public init() {
        let navigation = NavigationController()
        navigationController = navigation
        navigation.owner = self
    }

    public func showTextInputPrompt(withMessage message: String, completionBlock: @escaping (Bool, String?) -> Void) {
        prompts.append(message)
        Task { @MainActor in
            let text = await answer(message)
            completionBlock(text != nil, text)
        }
    }

    public func showMessagePrompt(_ message: String) {
        messages.append(message)
        finish(Message(description: message))
    }

    /// Ends the snippet being run with `error` (nil: it succeeded).
    public func finish(_ error: (any Error)?) {
        waiter?.resume(returning: error)
        waiter = nil
    }

    /// Runs a snippet and waits for it to end; a snippet that never ends fails after `timeout` seconds.
    public func run(timeout: Double = 60, _ snippet: () -> Void) async -> (any Error)? {
        runs += 1
        let run = runs
        return await withCheckedContinuation { continuation in
            waiter = continuation
            snippet()
            Task { @MainActor [weak self] in
                try? await Task.sleep(nanoseconds: UInt64(timeout * 1_000_000_000))
                // Only this run's waiter: a later run has its own clock.
                guard let self, self.runs == run else { return }
                self.finish(Message(description: "the snippet did not finish within \(timeout) s"))
            }
        }
    }
}
