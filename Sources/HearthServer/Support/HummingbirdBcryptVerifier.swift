import HearthCore
import HummingbirdBcrypt

/// bcrypt for imported users, from hummingbird-auth's HummingbirdBcrypt (OpenBSD's implementation), handed to
/// ``AccountContext`` so that HearthCore itself depends on no bcrypt library.
///
/// ```swift
/// let accounts = AccountContext(store: store, clock: SystemClock(), hashing: runner, bcrypt: HummingbirdBcryptVerifier())
/// ```
public struct HummingbirdBcryptVerifier: BcryptVerifier {
    public init() {}

    public func verify(_ password: String, against bcryptHash: String) -> Bool {
        Bcrypt.verify(password, hash: bcryptHash)
    }
}
