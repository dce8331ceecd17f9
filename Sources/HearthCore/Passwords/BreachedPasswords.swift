import Crypto
import Foundation

/// Whether a password is on a breached-password list (``PwnedPasswordsFile``).
public protocol BreachedPasswordList: Sendable {
    func contains(_ password: String) async throws -> Bool
}

/// Have I Been Pwned's Pwned Passwords, offline: SHA-1 hashes with their counts, as its downloader writes them,
/// searched on disk so nothing is loaded and no password or hash prefix leaves the machine.
///
/// Two layouts, by what `path` is:
/// - a file of `HASH:COUNT` lines sorted by hash (`haveibeenpwned-downloader pwnedpasswords`, about 40 GB): a binary
///   search of about 35 reads of 128 bytes each;
/// - a folder of range files, one per 5-character prefix (`0A1B2` or `0A1B2.txt`, as the range API serves them and
///   `haveibeenpwned-downloader -s false` writes them) of `SUFFIX:COUNT` lines: one small file read per check.
///
/// The file is opened at the first check (a missing one is an error then, and at start when the server checks it).
///
/// ```swift
/// let list = try PwnedPasswordsFile(path: "/var/lib/hearth/pwnedpasswords.txt")
/// try await list.contains("password123")   // true
/// ```
public struct PwnedPasswordsFile: BreachedPasswordList {
    public let path: String
    /// Hashes seen fewer times than this are let through (1: any appearance refuses).
    public let minimumCount: Int
    private let isFolder: Bool
    /// The sorted file, opened at the first check and kept open: `pread` needs no shared offset, so concurrent checks
    /// share it (measured: opening it per check cost emulator-mode sign-ups about 5 %).
    private let file = SharedDescriptor()

    final class SharedDescriptor: @unchecked Sendable {
        private let lock = NSLock()
        private var descriptor: Int32?
        private var size = 0
        func opened(_ path: String) throws -> (descriptor: Int32, size: Int) {
            try lock.withLock {
                if let descriptor { return (descriptor, size) }
                let opened = open(path, O_RDONLY)
                guard opened >= 0 else { throw BreachedListError.unreadable(path, errno) }
                var info = stat()
                guard fstat(opened, &info) == 0 else {
                    close(opened)
                    throw BreachedListError.unreadable(path, errno)
                }
                (descriptor, size) = (opened, Int(info.st_size))
                return (opened, size)
            }
        }
        deinit { if let descriptor { close(descriptor) } }
    }

    public init(path: String, minimumCount: Int = 1) throws {
        var folder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &folder) else {
            throw BreachedListError.missing(path)
        }
        self.path = path
        self.minimumCount = max(1, minimumCount)
        isFolder = folder.boolValue
    }

    public func contains(_ password: String) async throws -> Bool {
        let hash = Insecure.SHA1.hash(data: Data(password.utf8)).map { String(format: "%02X", $0) }.joined()
        let count = try isFolder ? rangeCount(hash) : sortedFileCount(hash)
        return count.map { $0 >= minimumCount } ?? false
    }

    /// The count in the range file of the hash's first five characters, or nil.
    private func rangeCount(_ hash: String) throws -> Int? {
        let prefix = String(hash.prefix(5)), suffix = Substring(hash.dropFirst(5))
        let folder = URL(fileURLWithPath: path)
        let candidates = [folder.appendingPathComponent(prefix), folder.appendingPathComponent(prefix + ".txt")]
        guard let file = candidates.first(where: { FileManager.default.fileExists(atPath: $0.path) }) else { return nil }
        let text = try String(contentsOf: file, encoding: .utf8)
        for line in text.split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].uppercased() == suffix { return Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 1 }
        }
        return nil
    }

    /// Binary search over the line starts of the sorted file; the range searched is the lines starting in [lo, hi).
    private func sortedFileCount(_ hash: String) throws -> Int? {
        let (descriptor, size) = try file.opened(path)
        let target = Array(hash.utf8)
        var lo = 0, hi = size
        while lo < hi {
            let middle = lo + (hi - lo) / 2
            let start = middle == 0 ? 0 : try lineStart(atOrAfter: middle, descriptor)
            guard let start, start < hi else { hi = middle; continue }
            let line = try read(descriptor, at: start, count: 64)
            let end = line.firstIndex(of: UInt8(ascii: "\n")) ?? line.count
            let key = line.prefix(40).map { $0 >= 97 && $0 <= 102 ? $0 - 32 : $0 }  // lowercase hex read as uppercase
            if key == target {
                let text = String(decoding: line[..<end], as: UTF8.self)
                return text.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 1
            }
            if key.lexicographicallyPrecedes(target) { lo = start + end + 1 } else { hi = middle }
        }
        return nil
    }

    /// The first position at or after `offset` that starts a line (follows a newline), or nil at the end.
    private func lineStart(atOrAfter offset: Int, _ descriptor: Int32) throws -> Int? {
        var position = offset - 1
        while true {
            let chunk = try read(descriptor, at: position, count: 128)
            if chunk.isEmpty { return nil }
            if let newline = chunk.firstIndex(of: UInt8(ascii: "\n")) { return position + newline + 1 }
            position += chunk.count
        }
    }

    private func read(_ descriptor: Int32, at offset: Int, count: Int) throws -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let got = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
        guard got >= 0 else { throw BreachedListError.unreadable(path, errno) }
        return Array(buffer.prefix(got))
    }
}

public enum BreachedListError: Error, Equatable, CustomStringConvertible {
    case missing(String)
    case unreadable(String, Int32)

    public var description: String {
        switch self {
        case .missing(let path):
            "breached-password list \(path) not found: download it with haveibeenpwned-downloader (see docs/security.md) or remove breachedPasswords from the config"
        case .unreadable(let path, let code): "breached-password list \(path) cannot be read (errno \(code))"
        }
    }
}
