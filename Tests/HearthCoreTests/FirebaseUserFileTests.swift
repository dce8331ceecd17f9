import Foundation
@testable import HearthCore
import Testing

/// The Firebase CLI's user files: read a user at a time, written back identically, round-tripped through a store.
@Suite struct FirebaseUserFileTests {
    func temporaryFile(_ name: String, _ contents: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("hearth-\(UUID().uuidString)-\(name)").path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func readsJSONWithEscapesAndBracesInsideStrings() throws {
        let path = try temporaryFile("users.json", #"""
            {"users": [
              {"localId": "a", "email": "a@example.com", "displayName": "Brace } and \" quote {", "emailVerified": true,
               "passwordHash": "lSrfV15cpx95_sZS2W9c9Kp6i_LVgQNDNC_qzrCnh1SAyZvqmZqAjTdn3aoItz-VHjoZilo78198JAdRuid5lQ", "salt": "42xEC+ixf3L2lw==",
               "createdAt": "1600000000000", "customAttributes": "{\"plan\":\"pro\"}",
               "providerUserInfo": [{"providerId": "github.com", "rawId": "gh-1", "email": "a@github.example"}]},
              {"localId": "b", "disabled": true, "lastSignedInAt": 1600000100000}
            ]}
            """#)
        let reader = try FirebaseUserFile.Reader(path: path)
        let users = try reader.next(10)
        #expect(users.count == 2)
        #expect(users[0].displayName == "Brace } and \" quote {" && users[0].emailVerified)
        #expect(users[0].passwordHash?.base64EncodedString()
                == "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==")
        #expect(users[0].createdAt == Date(timeIntervalSince1970: 1_600_000_000))
        #expect(users[0].customAttributes == #"{"plan":"pro"}"# && users[0].providers.first?.rawID == "gh-1")
        #expect(users[1].disabled && users[1].lastLoginAt == Date(timeIntervalSince1970: 1_600_000_100))
        #expect(try reader.next(10).isEmpty)
    }

    @Test func readsCSVColumnsQuotedFieldsAndLongFilesAcrossChunks() throws {
        var lines = [#"u0,u0@example.com,true,aGFzaA==,c2FsdA==,"Name, with ""quotes""",https://x.test/p.png,g-0,g@x.test,,,,,,,,,,,,,,,1600000000000,1600000100000,+15555550100,false,"{""a"":1}",ap-0,,,,"#]
        for index in 1..<3000 { lines.append("u\(index),u\(index)@example.com,false,,,,,,,,,,,,,,,,,,,,,,,,,") }
        let path = try temporaryFile("users.csv", lines.joined(separator: "\r\n") + "\r\n")
        let reader = try FirebaseUserFile.Reader(path: path)
        let first = try reader.next(1000)
        #expect(first.count == 1000)
        let user = first[0]
        #expect(user.localID == "u0" && user.email == "u0@example.com" && user.emailVerified)
        #expect(user.passwordHash == Data("hash".utf8) && user.salt == Data("salt".utf8))
        #expect(user.displayName == #"Name, with "quotes""#)
        #expect(user.phoneNumber == "+15555550100" && user.customAttributes == #"{"a":1}"#)
        #expect(user.providers.map(\.providerID) == ["google.com", "apple.com"])
        #expect(user.createdAt == Date(timeIntervalSince1970: 1_600_000_000))
        var total = first.count
        while case let batch = try reader.next(1000), !batch.isEmpty { total += batch.count }
        #expect(total == 3000, "every line of a file larger than one read chunk")
    }

    @Test func phoneSecondFactorsGoOutAndComeBackIn() throws {
        var user = UserRecord(projectID: "p", localID: "u1", email: "u1@example.com", validSince: 0,
                              createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        user.enrollments = [
            MFAEnrollment(id: "f1", displayName: "Work", phoneNumber: "+15555550100",
                          enrolledAt: Date(timeIntervalSince1970: 1_700_000_100)),
            MFAEnrollment(id: "f2", displayName: "App", totpSecret: "GEZDGNBVGY3TQOJQ", enrolledAt: Date()),
        ]
        let line = FirebaseUserFile.jsonLine(user, parameters: FirebaseScryptParameters(signerKey: Data([1]), saltSeparator: Data([2])))
        #expect(!line.contains("GEZDGNBVGY3TQOJQ"), "TOTP secrets never leave in an export")
        let back = try FirebaseUserFile.jsonUser(Data(line.utf8), position: 0)
        #expect(back.mfa == [MFAEnrollmentInput(id: "f1", displayName: "Work", phoneNumber: "+15555550100",
                                                enrolledAt: Date(timeIntervalSince1970: 1_700_000_100))])
    }

    @Test func malformedEntriesNameTheirPosition() throws {
        let badBase64 = try temporaryFile("bad.csv", "a,a@example.com,false,%%%,,\n")
        #expect(throws: FirebaseUserFile.ReadError.self) { try FirebaseUserFile.Reader(path: badBase64).next(10) }
        let unknown = try temporaryFile("bad.json", #"{"users":[{"localId":"a"},{"localId":"b","password":"x"}]}"#)
        do {
            _ = try FirebaseUserFile.Reader(path: unknown).next(10)
            Issue.record("an unknown key was accepted")
        } catch let error as FirebaseUserFile.ReadError {
            #expect(error.position == 2 && error.message.contains("password"))
        }
        let truncated = try temporaryFile("cut.json", #"{"users":[{"localId":"a"},{"localId":"#)
        #expect(throws: FirebaseUserFile.ReadError.self) { try FirebaseUserFile.Reader(path: truncated).next(10) }
    }

    @Test func exportThenImportIntoAnotherProjectKeepsPasswordsWorking() async throws {
        let source = InMemoryStore()
        let accounts = AccountContext(store: source, clock: SystemClock(), hashing: InlineWorkRunner())
        let directory = ProjectDirectory(store: source, clock: SystemClock(),
                                         defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: false) },
                                         hashParameters: { .generate(memoryCost: 10) })
        let project = try await directory.contextCreatingIfNeeded(for: "source-project")
        _ = try await accounts.passwords.signUp(in: project, email: "ana@example.com", password: "secret123", displayName: "Ana, A.")
        let users = try await source.users(projectID: project.id, after: nil, limit: 10)
        for format in FirebaseUserFile.Format.allCases {
            let text = switch format {
            case .json: "{\"users\": [\n" + users.map { FirebaseUserFile.jsonLine($0, parameters: project.record.hashConfig) }
                .joined(separator: ",\n") + "\n]}\n"
            case .csv: users.map { FirebaseUserFile.csvLine($0, parameters: project.record.hashConfig) + "\n" }.joined()
            }
            let path = try temporaryFile("export.\(format.rawValue)", text)
            let read = try FirebaseUserFile.Reader(path: path).next(10)
            #expect(read.count == 1 && read[0].displayName == "Ana, A." && read[0].passwordHash != nil)

            let target = InMemoryStore()
            let targetDirectory = ProjectDirectory(store: target, clock: SystemClock(),
                                                   defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: false) },
                                                   hashParameters: { .generate(memoryCost: 10) })
            let other = try await targetDirectory.contextCreatingIfNeeded(for: "target-project")
            let targetAccounts = AccountContext(store: target, clock: SystemClock(), hashing: InlineWorkRunner())
            let rejected = try await targetAccounts.importer.importUsers(in: other, read,
                                                                hashing: .firebaseScrypt(project.record.hashConfig))
            #expect(rejected.isEmpty)
            let signedIn = try await targetAccounts.passwords.signInWithPassword(in: other, email: "ana@example.com", password: "secret123").signedIn()
            #expect(signedIn.user.localID == users[0].localID, "\(format): same user, same password")
        }
    }
}
