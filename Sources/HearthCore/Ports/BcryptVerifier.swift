import Foundation

/// Checks a password against a bcrypt string. HearthCore has no bcrypt of its own (it depends on no outside
/// implementation but swift-crypto): the server supplies one and hands it to ``AccountContext``.
public protocol BcryptVerifier: Sendable {
    func verify(_ password: String, against bcryptHash: String) -> Bool
}
