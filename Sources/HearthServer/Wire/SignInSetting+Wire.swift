import Foundation
import HearthCore
import HearthWire
import Hummingbird

// Declared sign-in settings (`SignInSetting.all`) on the admin API: read from a config or tenant patch, written by its
// `updateMask`, shown in the resource. Nothing here names a setting: each follows from its declaration.

/// A patch body whose typed fields leave the declared settings' top-level keys (`client`) to ``DeclaredSettingsPatch``:
/// strict decoding of the typed body ignores those keys, and the declared reading checks them instead.
protocol CarriesDeclaredSettings {}
extension ProjectConfigPatch: CarriesDeclaredSettings {}
extension TenantPatch: CarriesDeclaredSettings {}

/// The declared settings a patch body gives, checked against their declarations.
struct DeclaredSettingsPatch {
    let scope: SignInSetting.Scope
    /// The values given, by path.
    let given: [String: SettingValue]

    /// The top-level keys declared settings live under.
    static let roots: [String] = Array(Set(SignInSetting.all.map { String($0.path.prefix { $0 != "." }) })).sorted()

    /// The writable paths of the declared settings settable in `scope`.
    static func paths(in scope: SignInSetting.Scope) -> Set<String> { Set(SignInSetting.settable(in: scope).map(\.path)) }

    /// Reads the body of `call`. A value of the wrong kind is `INVALID_ARGUMENT`; so, in production, is a field under a
    /// declared root that is not a setting of this scope (emulator mode ignores it, as Firebase's emulator does).
    init(_ call: Call, scope: SignInSetting.Scope) throws {
        self.scope = scope
        let settings = Dictionary(uniqueKeysWithValues: SignInSetting.settable(in: scope).map { ($0.path, $0) })
        var given: [String: SettingValue] = [:]
        func walk(_ value: JSONValue, _ path: String) throws {
            if case .object(let members) = value {
                for (key, member) in members { try walk(member, path + "." + key) }
                return
            }
            guard let setting = settings[path] else {
                if call.configuration.isEmulator { return }
                throw APIError.business(.invalidArgument, "\(path) is not a setting Hearth has "
                    + "(settings: \(settings.keys.sorted().joined(separator: ", ")))")
            }
            let parsed: SettingValue? = switch value {
            case .bool(let flag): .bool(flag)
            case .number(let number) where number.rounded() == number && abs(number) < 1e15: .int(Int(number))
            case .string(let text): Int(text).map(SettingValue.int)  // Google's int64 as a string
            default: nil
            }
            guard let parsed, setting.accepts(parsed) else {
                throw APIError.business(.invalidArgument, "\(path) must be \(setting.expected)")
            }
            given[path] = parsed
        }
        if let body = try? call.context.body.object.get() {
            for root in Self.roots { if let value = body.value(root) { try walk(value, root) } }
        }
        self.given = given
    }

    /// The paths the body sets: what a patch without `updateMask` changes.
    var presentPaths: Set<String> { Set(given.keys) }

    /// Applies the declared paths among `mask`: a path in the mask but absent from the body goes back to its default,
    /// as Google's `updateMask` does.
    func apply(_ mask: Set<String>, to values: inout DeclaredSettings) {
        for setting in SignInSetting.settable(in: scope) where mask.contains(setting.path) {
            if let value = given[setting.path] { values[setting] = value } else { values.reset(setting) }
        }
    }

    /// The writable declared paths a mask entry names: itself, or every path under a parent (`client.permissions`).
    static func expand(_ path: String, in scope: SignInSetting.Scope) -> [String] {
        paths(in: scope).filter { $0 == path || $0.hasPrefix(path + ".") }.sorted()
    }
}

/// A config or tenant resource with the declared settings `values` has set, each at its path (Google's JSON leaves
/// out what is not set).
func presented(_ resource: some Encodable, declaring values: DeclaredSettings, in scope: SignInSetting.Scope) -> JSONValue {
    guard let data = try? JSONEncoder().encode(resource),
          case .object(var object)? = try? JSONDecoder().decode(JSONValue.self, from: data)
    else { return .object([:]) }
    for setting in SignInSetting.settable(in: scope) where values.isSet(setting) {
        let value: JSONValue = switch values[setting] {
        case .bool(let flag): .bool(flag)
        case .int(let number): .number(Double(number))
        }
        object.set(value, at: setting.path.split(separator: ".").map(String.init))
    }
    return .object(object)
}

extension [String: JSONValue] {
    /// Sets `value` at a field path, making the objects on the way.
    fileprivate mutating func set(_ value: JSONValue, at path: [String]) {
        guard let first = path.first else { return }
        if path.count == 1 { self[first] = value; return }
        var inner: [String: JSONValue] = if case .object(let existing)? = self[first] { existing } else { [:] }
        inner.set(value, at: Array(path.dropFirst()))
        self[first] = .object(inner)
    }
}
