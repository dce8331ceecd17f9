import Foundation

// The configuration's schema is read off the type that decodes it (`ConfigFile`): each stored property is a key, its
// Swift type gives the key's kind. So a setting is declared once, as a property, and the file's key check, the
// environment variables, the secret files and the reference in docs/configuration.md all follow.

extension ConfigSchema {
    /// The schema of `type`, as its `init(from:)` reads it: the keys it asks for, with the kinds of their values.
    /// `secrets` are the dotted paths of values never logged.
    static func derived<T: Decodable>(from type: T.Type, secrets: Set<String>) -> Node {
        let probe = SchemaProbe(secrets: secrets)
        return (try? probe.node(of: type, path: [])) ?? .object([:])
    }
}

/// Decodes a type with placeholder values while noting what it asks for.
private final class SchemaProbe {
    let secrets: Set<String>
    init(secrets: Set<String>) { self.secrets = secrets }

    /// The node of a value of `type` at `path`, and a placeholder of that type to hand back to its decoder.
    func node<T: Decodable>(of type: T.Type, path: [String]) throws -> Node {
        try valueAndNode(of: type, path: path).node
    }

    typealias Node = ConfigSchema.Node

    func valueAndNode<T: Decodable>(of type: T.Type, path: [String]) throws -> (value: T, node: Node) {
        let secret = secrets.contains(path.joined(separator: "."))
        func leaf(_ kind: ConfigSchema.Kind, _ value: Any) -> (T, Node) { (value as! T, .value(kind, secret: secret)) }
        switch type {
        case is String.Type: return leaf(.string, "")
        case is Int.Type: return leaf(.int, 0)
        case is Double.Type: return leaf(.double, 0.0)
        case is Bool.Type: return leaf(.bool, false)
        default: break
        }
        if let cases = type as? any CaseIterable.Type, let first = firstCase(of: cases) as? T {
            return (first, .value(.string, secret: secret))
        }
        if let map = type as? any StringKeyedMap.Type {
            let element = try node(ofElementOf: map, path: path)
            return (map.empty as! T, .map(element))
        }
        if let list = type as? any ConfigList.Type {
            return (list.empty as! T, .value(.strings, secret: secret))
        }
        // An object: decoded with placeholders. A section whose own checks refuse the placeholders is noted as far
        // as it was read and then treated as absent, so its parent reads on (config sections are optional).
        let keys = ProbedKeys()
        while true {
            do {
                return (try T(from: ProbeDecoder(probe: self, path: path, keys: keys)), keys.node)
            } catch is ProbeRetry {
                continue  // a section inside refused; it is absent now, its keys noted
            } catch {
                throw ProbeRefused(node: keys.node)
            }
        }
    }

    private func firstCase<C: CaseIterable>(of type: C.Type) -> Any? { type.allCases.first }

    private func node<M: StringKeyedMap>(ofElementOf map: M.Type, path: [String]) throws -> Node {
        try node(of: M.Element.self, path: path + ["*"])
    }
}

/// A dictionary keyed by data (provider ids, locales, phone numbers): a map in the schema.
private protocol StringKeyedMap {
    associatedtype Element: Decodable
    static var empty: Self { get }
}

extension Dictionary: StringKeyedMap where Key == String, Value: Decodable {
    typealias Element = Value
    static var empty: Self { [:] }
}

/// A list of strings, or of a string enum's values.
private protocol ConfigList { static var empty: Self { get } }
extension Array: ConfigList where Element: Decodable { static var empty: Self { [] } }
extension Set: ConfigList where Element: Decodable { static var empty: Self { [] } }

/// A section's own checks refused the placeholders: what it read before that.
private struct ProbeRefused: Error { let node: ConfigSchema.Node }
/// A section was refused and is absent from now on: decode its parent again.
private struct ProbeRetry: Error {}

/// The keys one object asked for, by name; a nested container's are filled in as its decoding goes on.
private final class ProbedKeys {
    var nodes: [String: ConfigSchema.Node] = [:]
    var nested: [String: ProbedKeys] = [:]
    /// Sections refused on an earlier pass, read as absent.
    var absent: Set<String> = []

    var node: ConfigSchema.Node { .object(nodes.merging(nested.mapValues(\.node)) { $1 }) }
}

private struct ProbeDecoder: Decoder {
    let probe: SchemaProbe
    let path: [String]
    var keys = ProbedKeys()
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(ProbeContainer<Key>(probe: probe, path: path, keys: keys))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [], debugDescription: "a list is read as a value"))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        throw DecodingError.typeMismatch(Any.self, .init(codingPath: [], debugDescription: "a value is read by its type"))
    }
}

private struct ProbeContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let probe: SchemaProbe
    let path: [String]
    let keys: ProbedKeys
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }

    func contains(_ key: Key) -> Bool { !keys.absent.contains(key.stringValue) }
    func decodeNil(forKey key: Key) throws -> Bool { keys.absent.contains(key.stringValue) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        guard !keys.absent.contains(key.stringValue) else {
            throw DecodingError.keyNotFound(key, .init(codingPath: [], debugDescription: "refused on an earlier pass"))
        }
        do {
            let (value, node) = try probe.valueAndNode(of: type, path: path + [key.stringValue])
            keys.nodes[key.stringValue] = node
            return value
        } catch let refused as ProbeRefused {
            keys.nodes[key.stringValue] = refused.node
            keys.absent.insert(key.stringValue)
            throw ProbeRetry()
        }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey> {
        let nested = ProbedKeys()
        keys.nested[key.stringValue] = nested
        return KeyedDecodingContainer(ProbeContainer<NestedKey>(probe: probe, path: path + [key.stringValue], keys: nested))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        throw DecodingError.typeMismatch([Any].self, .init(codingPath: [], debugDescription: "a list is read as a value"))
    }

    func superDecoder() throws -> any Decoder { ProbeDecoder(probe: probe, path: path) }
    func superDecoder(forKey key: Key) throws -> any Decoder { ProbeDecoder(probe: probe, path: path + [key.stringValue]) }
}
