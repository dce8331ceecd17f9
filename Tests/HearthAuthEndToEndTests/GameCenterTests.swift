import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import HearthAuth
import HearthTestSupport
import Testing

/// Game Center sign-in end to end: signatures made as GameKit makes them (by Python's `cryptography`, with a
/// certificate served where Apple's would be), checked by the server, exchanged by HearthAuth; then every way a
/// signature can be abused.
@Suite(.enabled(if: LiveHearth.unavailableReason == nil, "needs authlib and aiosmtpd: \(LiveHearth.unavailableReason ?? "")"))
struct GameCenterTests {
    static func credential(_ live: LiveHearth, player: String, bundle: String = LiveHearth.gameBundleID) async throws
        -> GameCenterAuthCredential
    {
        let signed = try await live.idp.gameCenterSignature(player: player, bundle: bundle)
        return GameCenterAuthCredential(playerID: "G:" + player, teamPlayerID: player, gamePlayerID: "A:" + player,
                                        publicKeyURL: URL(string: signed.publicKeyURL)!,
                                        signature: Data(base64Encoded: signed.signature)!,
                                        salt: Data(base64Encoded: signed.salt)!, timestamp: UInt64(signed.timestamp),
                                        displayName: "Player One")
    }

    @Test func aPlayerSignsInAndComesBackToTheSameAccount() async throws {
        try await LiveHearth.run { live in
            let auth = live.auth()
            let first = try await auth.signIn(with: try await Self.credential(live, player: "T:player-1"))
            #expect(first.additionalUserInfo?.isNewUser == true && first.additionalUserInfo?.providerID == "gc.apple.com")
            #expect(first.user.providerData.map(\.providerID) == ["gc.apple.com"] && first.user.displayName == "Player One")
            try auth.signOut()
            let again = try await auth.signIn(with: try await Self.credential(live, player: "T:player-1"))
            #expect(again.user.uid == first.user.uid && again.additionalUserInfo?.isNewUser == false)
        }
    }

    @Test func signaturesThatMustNotSignAnyoneIn() async throws {
        try await LiveHearth.run { live in
            func post(_ body: [String: Any]) async throws -> String {
                var request = URLRequest(url: URL(string: live.base + "/identitytoolkit.googleapis.com/v1/accounts:signInWithGameCenter?key="
                                                  + LiveHearth.apiKey)!)
                request.httpMethod = "POST"
                request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                request.httpBody = try JSONSerialization.data(withJSONObject: body)
                let (data, _) = try await URLSession.shared.data(for: request)
                let reply = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
                return ((reply["error"] as? [String: Any])?["message"] as? String) ?? (reply["idToken"] != nil ? "SIGNED IN" : "\(reply)")
            }
            func body(player: String = "T:p", bundle: String = LiveHearth.gameBundleID, timestamp: Int64? = nil,
                      edit: (inout [String: Any]) -> Void = { _ in }) async throws -> [String: Any] {
                let signed = try await live.idp.gameCenterSignature(player: player, bundle: bundle, timestamp: timestamp)
                var body: [String: Any] = ["teamPlayerId": player, "publicKeyUrl": signed.publicKeyURL,
                                           "signature": signed.signature, "salt": signed.salt, "timestamp": signed.timestamp]
                edit(&body)
                return body
            }
            let good = try await body()
            #expect(try await post(good) == "SIGNED IN")
            #expect(try await post(good).contains("already used"), "a signature signs in once")

            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let cases: [(String, [String: Any], String)] = [
                ("another app's bundle id", try await body(bundle: "com.evil.game"), "bundle id"),
                ("ten minutes old", try await body(timestamp: now - 600_000), "too old"),
                ("another player's id", try await body { $0["teamPlayerId"] = "T:victim" }, "does not verify"),
                // A genuine signature over the attacker's own playerId, naming the victim's teamPlayerId.
                ("own playerId signed, victim's teamPlayerId named", try await body(player: "G:attacker") {
                    $0["playerId"] = "G:attacker"; $0["teamPlayerId"] = "T:victim" }, "does not verify"),
                ("a key from elsewhere", try await body { $0["publicKeyUrl"] = "https://evil.example/gc.cer" }, "not Apple's"),
                ("a path out of the key folder", try await body {
                    $0["publicKeyUrl"] = live.idp.issuer + "/gc/public-key/../../jwks" }, "not Apple's"),
                ("an encoded path out of the key folder", try await body {
                    $0["publicKeyUrl"] = live.idp.issuer + "/gc/public-key/%2e%2e/%2e%2e/jwks" }, "not Apple's"),
                ("a look-alike host", try await body {
                    $0["publicKeyUrl"] = live.idp.issuer.replacingOccurrences(of: "http://", with: "http://user@") + "/gc/public-key/gc.cer" },
                 "not Apple's"),
                ("no signature", try await body { $0["signature"] = nil }, "required"),
                ("no player", try await body { $0["teamPlayerId"] = nil }, "required"),
            ]
            for (why, request, detail) in cases {
                let message = try await post(request)
                #expect(message.hasPrefix("INVALID_IDP_RESPONSE") && message.contains(detail), "\(why): \(message)")
            }
        }
    }
}
