import Foundation

/// A sign-in setting declared once: its path in the project's `Config` and a tenant's `Tenant` resource, where it
/// may be set, its default and what values it takes. Storage, the tenant's override of the project, the admin API's
/// patch (with its `updateMask`) and presentation all follow from the declaration; a new setting is one line in
/// ``all`` plus the code that honours it.
///
/// ```swift
/// guard !project.settings.declared.bool(.disabledUserSignup) else { throw AuthFailure.adminOnlyOperation }
/// ```
public struct SignInSetting: Sendable, Hashable {
    public enum Scope: Sendable, Hashable { case project, tenant }

    /// The values a setting takes: what a patch is checked against.
    public enum Kind: Sendable, Hashable {
        case bool
        case int(ClosedRange<Int>)
    }

    /// The field path on the wire, the same in the project's config and a tenant (`client.permissions.disabledUserSignup`);
    /// also the key it is stored under.
    public let path: String
    public let scopes: Set<Scope>
    /// Whether a tenant that has not set it follows its project; otherwise it has the default until set (Identity
    /// Platform's tenants hold their own settings).
    public let inheritedByTenants: Bool
    public let kind: Kind
    public let defaultValue: SettingValue

    public init(_ path: String, scopes: Set<Scope> = [.project, .tenant], inheritedByTenants: Bool = false,
                kind: Kind = .bool, default defaultValue: SettingValue = .bool(false)) {
        self.path = path
        self.scopes = scopes
        self.inheritedByTenants = inheritedByTenants
        self.kind = kind
        self.defaultValue = defaultValue
    }

    /// Whether `value` is one this setting takes.
    public func accepts(_ value: SettingValue) -> Bool {
        switch (kind, value) {
        case (.bool, .bool): true
        case (.int(let range), .int(let number)): range.contains(number)
        default: false
        }
    }

    /// What a value of this setting must be, for an error message.
    public var expected: String {
        switch kind {
        case .bool: "a boolean"
        case .int(let range): "an integer from \(range.lowerBound) to \(range.upperBound)"
        }
    }
}

extension SignInSetting {
    /// `client.permissions.disabledUserSignup`: end users cannot create accounts (sign-up, a first sign-in with a
    /// provider, a phone number or an email link answer `ADMIN_ONLY_OPERATION`); administrators still can.
    public static let disabledUserSignup = SignInSetting("client.permissions.disabledUserSignup")
    /// `client.permissions.disabledUserDeletion`: end users cannot delete their own accounts.
    public static let disabledUserDeletion = SignInSetting("client.permissions.disabledUserDeletion")

    /// Every declared setting.
    public static let all: [SignInSetting] = [disabledUserSignup, disabledUserDeletion]

    /// The declared settings that may be set in `scope`.
    public static func settable(in scope: Scope) -> [SignInSetting] { all.filter { $0.scopes.contains(scope) } }
}

/// A declared setting's value.
public enum SettingValue: Sendable, Hashable, Codable {
    case bool(Bool)
    case int(Int)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let flag = try? container.decode(Bool.self) { self = .bool(flag) } else { self = .int(try container.decode(Int.self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .bool(let flag): try container.encode(flag)
        case .int(let number): try container.encode(number)
        }
    }
}

/// The declared settings a project or tenant has set, by path; what is not set has its default (a tenant's, its
/// project's when the setting is inherited).
public struct DeclaredSettings: Sendable, Equatable, Codable {
    private var values: [String: SettingValue]

    public init() { values = [:] }

    public init(from decoder: any Decoder) throws { values = try [String: SettingValue](from: decoder) }
    public func encode(to encoder: any Encoder) throws { try values.encode(to: encoder) }

    public var isEmpty: Bool { values.isEmpty }

    /// The value in force: the one set, or the default.
    public subscript(setting: SignInSetting) -> SettingValue {
        get { values[setting.path] ?? setting.defaultValue }
        set { values[setting.path] = newValue }
    }

    public func isSet(_ setting: SignInSetting) -> Bool { values[setting.path] != nil }

    /// Back to the default.
    public mutating func reset(_ setting: SignInSetting) { values[setting.path] = nil }

    public func bool(_ setting: SignInSetting) -> Bool {
        if case .bool(let flag) = self[setting] { return flag }
        return false
    }

    /// What a tenant works under: its own values, then its project's for settings tenants inherit.
    public static func inForce(project: DeclaredSettings, tenant: DeclaredSettings) -> DeclaredSettings {
        var merged = DeclaredSettings()
        for setting in SignInSetting.all {
            if setting.scopes.contains(.tenant), let own = tenant.values[setting.path] {
                merged.values[setting.path] = own
            } else if setting.inheritedByTenants, let inherited = project.values[setting.path] {
                merged.values[setting.path] = inherited
            }
        }
        return merged
    }
}
