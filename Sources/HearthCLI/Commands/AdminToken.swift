import ArgumentParser
import Foundation
import HearthCore

/// `hearth admin-token --key-file FILE`: a short-lived admin bearer for curl, signed with a service account's key.
struct AdminToken: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin-token",
        abstract: "Print an admin bearer token for one admin API call, signed with a service account's key file.",
        discussion: """
            Each token is accepted once (a captured header cannot be replayed), so run it for each call:

              API=http://127.0.0.1:9099/identitytoolkit.googleapis.com/v1
              curl -H "Authorization: Bearer $(hearth admin-token --key-file KEY.json)" \\
                -d '{"localId": ["USER_ID"]}' "$API/projects/hearth-local/accounts:lookup"

            The token names the server it is for (its audience): --url, else the running server's address \
            (server.json in its data folder, written by `hearth serve`), else publicURL or the configured host \
            and port, with a note on standard error.
            """)

    @Option(name: .customLong("key-file"), help: "The service account's key file (from `hearth service-accounts create`).")
    var keyFile: String

    @Option(help: "The server's base URL, as it knows itself (its publicURL; default: the running server's address).")
    var url: String?

    @OptionGroup var location: StoreOptions

    @Option(help: "Seconds the token stays valid (default 300, at most 3600).")
    var lifetime: Int64 = 300

    func run() async throws {
        guard let data = FileManager.default.contents(atPath: keyFile) else {
            throw CommandFailure("cannot read \(keyFile): give the key file `hearth service-accounts create` wrote")
        }
        var audience = url ?? ""
        if url == nil {
            let file = try await location.configFile()
            let address = ServerRecord.address(store: location.storeLocation(file), publicURL: file.publicURL,
                                               host: file.host, port: file.port)
            if let note = address.note { FileHandle.standardError.write(Data((note + "\n").utf8)) }
            audience = address.url
        }
        do {
            print(try AdminAssertion.sign(keyFile: data, audience: audience, now: Date(), lifetime: lifetime))
        } catch {
            throw CommandFailure("\(keyFile) is not a service-account key file (private_key_id, private_key, client_email)")
        }
    }
}
