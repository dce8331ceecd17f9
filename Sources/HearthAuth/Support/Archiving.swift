import Foundation

/// NSSecureCoding, where FirebaseAuth has it: apps archive users, results and credentials with `NSKeyedArchiver`
/// (to hand them to an extension, or keep a credential for later). Values go in as strings and JSON data.
extension NSCoder {
    func encodeString(_ value: String?, _ key: String) {
        if let value { encode(value as NSString, forKey: key) }
    }

    /// A value, or nil when the archive has none. `containsValue` first: on Linux, decoding a missing key marks
    /// the whole archive as failed.
    func decodeString(_ key: String) -> String? {
        guard containsValue(forKey: key) else { return nil }
        return decodeObject(of: NSString.self, forKey: key).map { String(describing: $0) }
    }

    func decodeObjectIfPresent<Object: NSObject & NSCoding>(of type: Object.Type, forKey key: String) -> Object? {
        containsValue(forKey: key) ? decodeObject(of: type, forKey: key) : nil
    }

    func encodeJSON(_ value: some Encodable, _ key: String) {
        if let data = try? JSONEncoder().encode(value) { encode(data as NSData, forKey: key) }
    }

    func decodeJSON<Value: Decodable>(_ type: Value.Type, _ key: String) -> Value? {
        guard containsValue(forKey: key) else { return nil }
        return decodeObject(of: NSData.self, forKey: key).flatMap { try? JSONDecoder().decode(type, from: Data(referencing: $0)) }
    }
}
