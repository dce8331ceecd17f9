import Foundation

/// Remembers ID tokens whose signature and claims were already verified, keyed by the exact token string.
///
/// Clients reuse one ID token for its whole hour (every `accounts:lookup`, every backend call), so repeat
/// verifications are the common case. A hit still re-checks expiry against the clock and that the signing key is
/// still published; revocation (`validSince`, disabled users) is checked on the user record as on a miss.
/// A tampered token is a different string, so it can never hit. Bounded: when full, the cache starts over.
public final class VerifiedTokenCache: @unchecked Sendable {
    private struct Entry {
        var claims: IDTokenClaims
        var kid: String
    }

    private let capacity: Int
    private let lock = NSLock()
    private var entries: [String: Entry] = [:]

    public init(capacity: Int = 10_000) { self.capacity = capacity }

    /// Cached claims for `token` in `projectID`, if it was verified before with a key still in `keys`.
    func claims(for token: String, projectID: String, keys: KeyRing) -> IDTokenClaims? {
        guard capacity > 0, let entry = lock.withLock({ entries[token] }),
              entry.claims.aud == projectID, keys.byKid[entry.kid] != nil
        else { return nil }
        return entry.claims
    }

    func remember(_ claims: IDTokenClaims, for token: String, kid: String) {
        guard capacity > 0 else { return }
        lock.withLock {
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[token] = Entry(claims: claims, kid: kid)
        }
    }
}
