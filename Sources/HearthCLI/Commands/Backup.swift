import ArgumentParser
import Foundation
import HearthCore
import HearthSQLite

/// `hearth backup FILE`: a consistent copy of an SQLite store, taken while servers run.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the SQLite store to FILE, consistently, while servers keep running.",
        discussion: """
            The copy is a complete store: restore by stopping Hearth and putting it in place, or serve it with \
            --store sqlite:FILE. For PostgreSQL use pg_dump (docs/operations.md, Backups).
            """)

    @Argument(help: "Where to write the copy (must not exist).") var file: String
    @OptionGroup var data: DataOptions

    func run() async throws {
        let location = data.storeLocation(try await data.configFile())
        guard let path = StoreFactory.sqlitePath(location) else {
            throw CommandFailure(location.hasPrefix("postgres")
                ? "\(StoreFactory.redacted(location)) is PostgreSQL: back it up with pg_dump (docs/operations.md, Backups)"
                : "\(location) is not an SQLite store; there is nothing to copy")
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw CommandFailure("no Hearth store at \(URL(fileURLWithPath: path).standardizedFileURL.path) (from \(location))")
        }
        guard !FileManager.default.fileExists(atPath: file) else { throw CommandFailure("\(file) exists; choose another name") }
        let started = ContinuousClock.now
        // Owner-only from the first byte, as the store itself: the copy holds signing keys. VACUUM INTO fills an
        // empty file.
        guard FileManager.default.createFile(atPath: file, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CommandFailure("cannot create \(file)")
        }
        let store = try await SQLiteStore.open(path: path, readers: 1)
        do {
            try await store.backup(to: file)
        } catch {
            try? await store.close()
            throw CommandFailure("backup of \(path) to \(file) failed: \(error)")
        }
        try await store.close()
        let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        let milliseconds = Int(started.duration(to: .now) / .milliseconds(1))
        print("copied \(path) to \(file) (\(size / 1024) KiB, owner-only) in \(milliseconds) ms")
    }
}
