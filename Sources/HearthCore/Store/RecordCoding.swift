import Foundation

/// How backends keep records in one JSON column: a single encoding shared by every store, so that a row written
/// by one instance reads the same in another and a future export can read it raw.
public enum RecordCoding {
    public static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from json: String) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return try decoder.decode(type, from: Data(json.utf8))
    }

    /// The email column that enforces one account per email: the normalized email when the project requires
    /// uniqueness or the account has a password (even with `allowDuplicateEmails`, one password account per email,
    /// as Firebase keeps it), otherwise NULL (NULLs never collide in a unique index).
    public static func uniqueEmailColumn(_ user: UserRecord, uniqueEmail: Bool) -> String? {
        uniqueEmail || user.passwordHash != nil ? user.normalizedEmail : nil
    }

    /// Tenant ids are stored as '' for the project's own users, so they can be part of primary keys.
    public static func tenantColumn(_ tenant: String?) -> String { tenant ?? "" }
}



/// A record with secrets to seal at rest: private keys, TOTP secrets, pending sign-in secrets.
protocol HoldsSecrets: Codable {
    /// Each secret field through `transform` (value, context), the context binding it to its record and field.
    func mapSecrets(_ transform: (String, String) throws -> String) rethrows -> Self
}

/// How a SQL store turns records into its JSON column and back: ``RecordCoding``, with the secrets of the records
/// that hold any sealed on the way in and opened on the way out (``SecretSealer``). Only those records pay for it;
/// without a sealer, values pass as they are, and a sealed one is an error that says what to set. Values from
/// before encryption are read as they are, and sealed at their next write (`hearth store encrypt` writes them all).
///
/// ```swift
/// let codec = RecordCodec(sealer: try SecretSealer(key: key))
/// let json = try codec.encode(user)                 // its TOTP secrets sealed
/// let back = try codec.decode(UserRecord.self, from: json)
/// ```
public struct RecordCodec: Sendable {
    public let sealer: SecretSealer?

    public init(sealer: SecretSealer? = nil) {
        self.sealer = sealer
    }

    public func encode(_ value: some Encodable) throws -> String {
        if let sealer, let record = value as? any HoldsSecrets {
            return try RecordCoding.encode(record.mapSecrets { sealer.seal($0, context: $1) })
        }
        return try RecordCoding.encode(value)
    }

    public func decode<T: Decodable>(_ type: T.Type, from json: String) throws -> T {
        try opened(RecordCoding.decode(type, from: json))
    }

    /// As ``decode(_:from:)``, the decoding itself taken from `decoded` when it holds this exact text.
    public func decode<T: Decodable & Sendable>(_ type: T.Type, from json: String, kept decoded: DecodedRecords<T>) throws -> T {
        try opened(decoded.record(for: json) { try RecordCoding.decode(type, from: $0) })
    }

    private func opened<T>(_ value: T) throws -> T {
        guard let record = value as? any HoldsSecrets else { return value }
        return try record.mapSecrets(open) as! T
    }

    private func open(_ value: String, _ context: String) throws -> String {
        guard let sealer else {
            if SecretSealer.isSealed(value) { throw SealingError.noKey }
            return value
        }
        return try sealer.unseal(value, context: context)
    }
}
