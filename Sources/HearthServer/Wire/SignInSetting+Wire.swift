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

/// The declared settings a patch body gives, by wire path, checked against their declarations.
struct DeclaredSettingsPatch {
    let scope: SignInSetting.Scope
    /// The values given, by their path in this scope's resource.
    let given: [String: SettingValue]

    /// Declared settings that the typed patches (``ProjectConfigPatch``, ``TenantPatch``) carry as fields: their values
    /// come from the typed body. The others are read from the raw body under their roots.
    static let typedPaths = ProjectConfigPatch.writablePaths.union(TenantPatch.writablePaths)

    /// The top-level keys of the settings no typed patch carries: the typed bodies' strict decoding leaves these to
    /// this reading.
    static let roots: [String] = Array(Set(SignInSetting.all.flatMap { [$0.project, $0.tenant] }.compactMap { $0?.path }
        .filter { !typedPaths.contains($0) }.map { String($0.prefix { $0 != "." }) })).sorted()

    /// The writable paths of the declared settings settable in `scope`.
    static func paths(in scope: SignInSetting.Scope) -> Set<String> {
        Set(SignInSetting.settable(in: scope).compactMap { $0.placement(in: scope)?.path })
    }

    /// Reads the settings of a patch: `typed` is what the typed body gave for its switches, by path; the rest come from
    /// the body of `call`. A value of the wrong kind is `INVALID_ARGUMENT`; so, in production, is a field under a root
    /// that is not a setting of this scope (emulator mode ignores it, as Firebase's emulator does).
    init(_ call: Call, scope: SignInSetting.Scope, typed: [String: Bool]) throws {
        self.scope = scope
        let settings = Dictionary(uniqueKeysWithValues: SignInSetting.settable(in: scope).compactMap { setting in
            setting.placement(in: scope).map { ($0.path, setting) }
        })
        var given = typed.filter { settings[$0.key] != nil }.mapValues(SettingValue.bool)
        func walk(_ value: JSONValue, _ path: String) throws {
            if case .object(let members) = value {
                for (key, member) in members { try walk(member, path + "." + key) }
                return
            }
            guard let setting = settings[path], !Self.typedPaths.contains(path) else {
                if call.configuration.isEmulator { return }
                throw APIError.business(.invalidArgument, "\(path) is not a setting Hearth has "
                    + "(settings: \(settings.keys.filter { !Self.typedPaths.contains($0) }.sorted().joined(separator: ", ")))")
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

    /// Applies the declared paths among `mask`. A path in the mask but absent from the body takes the wire's zero, as
    /// Google's `updateMask` does. A value is stored even when it is the default: it was chosen (and a record that
    /// never chose, like a project made before `signIn.phoneNumber.enabled` existed, is told apart at start).
    func apply(_ mask: Set<String>, to values: inout DeclaredSettings) {
        for setting in SignInSetting.settable(in: scope) {
            guard let placement = setting.placement(in: scope), mask.contains(placement.path) else { continue }
            values[setting] = placement.flipped(given[placement.path] ?? setting.wireZero)
        }
    }

    /// The writable declared paths a mask entry names: itself, or every path under a parent (`client.permissions`).
    static func expand(_ path: String, in scope: SignInSetting.Scope) -> [String] {
        paths(in: scope).filter { $0 == path || $0.hasPrefix(path + ".") }.sorted()
    }
}

/// A config or tenant resource with the declared settings it does not show itself: each at its path, when its wire
/// value is not the zero Google's JSON leaves out.
func presented(_ resource: some Encodable, declaring values: DeclaredSettings, in scope: SignInSetting.Scope) -> JSONValue {
    guard let data = try? JSONEncoder().encode(resource),
          case .object(var object)? = try? JSONDecoder().decode(JSONValue.self, from: data)
    else { return .object([:]) }
    for setting in SignInSetting.settable(in: scope) {
        guard let placement = setting.placement(in: scope), !DeclaredSettingsPatch.typedPaths.contains(placement.path)
        else { continue }
        let value: JSONValue = switch placement.flipped(values[setting]) {
        case .bool(let flag): .bool(flag)
        case .int(let number): .number(Double(number))
        }
        guard value != .bool(false), value != .number(0) else { continue }
        object.set(value, at: placement.path.split(separator: ".").map(String.init))
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
