import Crypto
import Foundation
import HearthCore
import Testing

/// The offline breach list, in both of the downloader's layouts: found passwords are found, others are not, in a
/// generated sorted file of a few thousand hashes (first, last and middle lines included) and in range files.
@Suite struct BreachedPasswordsTests {
    static func sha1(_ text: String) -> String {
        Insecure.SHA1.hash(data: Data(text.utf8)).map { String(format: "%02X", $0) }.joined()
    }

    static let breached = (0..<3000).map { "leaked-\($0)" } + ["password", "123456", "qwerty"]

    @Test func aSortedFileIsSearchedOnDisk() async throws {
        let lines = Self.breached.map { Self.sha1($0) + ":\(Int.random(in: 1...9999))" }.sorted()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pwned-\(UUID().uuidString).txt")
        try (lines.joined(separator: "\r\n") + "\r\n").write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let list = try PwnedPasswordsFile(path: file.path)
        for password in ["password", "123456", "qwerty", "leaked-0", "leaked-2999", "leaked-1500"] {
            #expect(try await list.contains(password), "\(password) is listed")
        }
        // The first and last lines of the file, whichever passwords they are.
        let first = try #require(Self.breached.first { Self.sha1($0) == lines.first?.prefix(40).description })
        let last = try #require(Self.breached.first { Self.sha1($0) == lines.last?.prefix(40).description })
        let firstFound = try await list.contains(first), lastFound = try await list.contains(last)
        #expect(firstFound && lastFound)
        for password in ["correct horse battery staple", "leaked-3000", "", "Password"] {
            #expect(try await !list.contains(password), "\(password) is not listed")
        }
        // A count threshold lets rare ones through.
        let strict = try PwnedPasswordsFile(path: file.path, minimumCount: 10_000)
        #expect(try await !strict.contains("password"))
    }

    @Test func rangeFilesAreReadByPrefix() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pwned-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let byPrefix = Dictionary(grouping: Self.breached.map(Self.sha1)) { String($0.prefix(5)) }
        for (prefix, hashes) in byPrefix {
            let body = hashes.map { String($0.dropFirst(5)) + ":3" }.joined(separator: "\n")
            try body.write(to: folder.appendingPathComponent(prefix + ".txt"), atomically: true, encoding: .utf8)
        }
        let list = try PwnedPasswordsFile(path: folder.path)
        let found = try await list.contains("password"), alsoFound = try await list.contains("leaked-42")
        #expect(found && alsoFound)
        #expect(try await !list.contains("correct horse battery staple"))
    }

    @Test func aMissingListSaysWhatToDo() {
        #expect(throws: BreachedListError.missing("/nonexistent/pwned.txt")) { try PwnedPasswordsFile(path: "/nonexistent/pwned.txt") }
        #expect(BreachedListError.missing("/x").description.contains("haveibeenpwned-downloader"))
    }
}
