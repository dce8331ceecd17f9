import AsyncHTTPClient
import Crypto
import Foundation
import HearthCore
import NIOCore
import X509
import _CryptoExtras

/// Game Center sign-in (`accounts:signInWithGameCenter`): the signature GameKit makes for the local player
/// (`fetchItems(forIdentityVerificationSignature:)`) is checked as Apple documents it:
///
/// - the public key comes from `publicKeyUrl`, which must be Apple's (`https://static.gc.apple.com/…`; the
///   provider's `issuer` can name another prefix, for tests), fetched over HTTPS, a certificate in force today;
/// - the RSA PKCS#1 v1.5 SHA-256 signature covers the id that becomes the identity: the team player id when one is
///   sent, else (older GameKit) the player id;
///   the app's bundle id (the provider's `clientId`; several, comma-separated), the timestamp as a big-endian
///   64-bit number, and the salt;
/// - the timestamp is within five minutes of now, and a signature is used once.
///
/// The player id becomes the identity (`gc.apple.com`); there is no email.
enum GameCenter {
    static let providerID = "gc.apple.com"
    static let defaultKeyPrefix = "https://static.gc.apple.com/"
    static let window: TimeInterval = 300

    /// Whether `url` is under `prefix` as a server reads it: same scheme, host and port, no user part, no query,
    /// and a path under the prefix's with no `..` (also percent-encoded: `path` is decoded).
    static func isAllowed(_ url: URL, prefix: String) -> Bool {
        guard let allowed = URL(string: prefix) else { return false }
        return url.scheme == allowed.scheme && url.host == allowed.host && url.port == allowed.port
            && url.user == nil && url.password == nil && url.query == nil
            && url.path.hasPrefix(allowed.path) && !url.path.contains("..") && !url.path.contains("\\")
    }

    /// The bytes Apple signs.
    static func signedPayload(playerID: String, bundleID: String, timestamp: UInt64, salt: Data) -> Data {
        var data = Data(playerID.utf8)
        data.append(contentsOf: Array(bundleID.utf8))
        withUnsafeBytes(of: timestamp.bigEndian) { data.append(contentsOf: $0) }
        data.append(salt)
        return data
    }
}

extension HTTPIdentityProviderVerifier {
    func gameCenter(_ fields: [String: String], config: IdentityProviderConfig, project: ProjectContext) async throws
        -> FederatedAssertion
    {
        func refuse(_ why: String) -> AuthFailure { AuthFailure.invalidIDPResponse(why) }
        // The id that becomes the identity, and the only one the signature may cover: a genuine signature over the
        // caller's own `playerId` must not vouch for a `teamPlayerId` they merely name.
        let identities = [fields["teamPlayerId"], fields["playerId"]].compactMap { $0 }.filter { !$0.isEmpty }
        guard let playerID = identities.first else { throw refuse("playerId or teamPlayerId is required") }
        guard let keyURL = fields["publicKeyUrl"], let url = URL(string: keyURL),
              GameCenter.isAllowed(url, prefix: config.issuer ?? GameCenter.defaultKeyPrefix)
        else { throw refuse("publicKeyUrl is not Apple's Game Center key") }
        guard let signature = fields["signature"].flatMap({ Data(base64Encoded: $0) }), !signature.isEmpty,
              let salt = fields["salt"].flatMap({ Data(base64Encoded: $0) }),
              let milliseconds = fields["timestamp"].flatMap(UInt64.init)
        else { throw refuse("signature, salt and timestamp are required (base64, base64, milliseconds)") }
        let now = clock.now()
        let signedAt = Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
        guard abs(signedAt.timeIntervalSince(now)) <= GameCenter.window else {
            throw refuse("the Game Center signature is too old (or from the future): get a new one")
        }
        let key = try await gameCenterKey(url, now: now)
        let bundleIDs = config.clientId.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let rsaSignature = _RSA.Signing.RSASignature(rawRepresentation: signature)
        let verified = bundleIDs.contains { bundle in
            key.isValidSignature(rsaSignature, for: GameCenter.signedPayload(
                playerID: playerID, bundleID: bundle, timestamp: milliseconds, salt: salt), padding: .insecurePKCS1v1_5)
        }
        guard verified else {
            throw refuse("the Game Center signature does not verify for this app's bundle id and "
                + (fields["teamPlayerId"]?.isEmpty == false ? "teamPlayerId" : "playerId"))
        }
        let fresh = try await store.useAssertionOnce(
            digest: storageDigest("gc:" + project.id + ":" + signature.base64EncodedString()),
            expiresAt: signedAt + GameCenter.window, now: now)
        guard fresh else { throw refuse("this Game Center signature was already used") }
        var profile: [String: String] = ["playerId": fields["playerId"] ?? "", "teamPlayerId": fields["teamPlayerId"] ?? "",
                                         "gamePlayerId": fields["gamePlayerId"] ?? ""]
        profile = profile.filter { !$0.value.isEmpty }
        let json = (try? JSONSerialization.data(withJSONObject: profile, options: [.sortedKeys])).map {
            String(decoding: $0, as: UTF8.self)
        } ?? "{}"
        return FederatedAssertion(providerID: GameCenter.providerID, rawID: playerID, displayName: fields["displayName"],
                                  rawUserInfo: json)
    }

    /// The RSA key of the certificate at `url` (DER, at most 64 KiB, valid now).
    func gameCenterKey(_ url: URL, now: Date) async throws -> _RSA.Signing.PublicKey {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .GET
        let data: Data
        do {
            let response = try await http.execute(request, timeout: timeout)
            guard response.status == .ok else {
                throw AuthFailure.invalidIDPResponse("Apple's Game Center key could not be fetched (\(response.status.code))")
            }
            data = Data(buffer: try await response.body.collect(upTo: 64 * 1024))
        } catch let failure as AuthFailure {
            throw failure
        } catch {
            throw AuthFailure.invalidIDPResponse("Apple's Game Center key could not be fetched")
        }
        guard let certificate = try? Certificate(derEncoded: Array(data)),
              let key = _RSA.Signing.PublicKey(certificate.publicKey)
        else { throw AuthFailure.invalidIDPResponse("Apple's Game Center key is not an RSA certificate") }
        guard certificate.notValidBefore <= now, now <= certificate.notValidAfter else {
            throw AuthFailure.invalidIDPResponse("Apple's Game Center key is not in force today")
        }
        return key
    }
}
