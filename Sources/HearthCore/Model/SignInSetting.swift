import Foundation

/// A sign-in setting declared once: where it sits in the project's `Config` and in a tenant's `Tenant` resource, its
/// default in each, whether tenants follow their project, and what values it takes. Storage, the tenant's merge over
/// the project, the admin API's patch (with its `updateMask`) and presentation all follow from the declaration; a new
/// setting is one declaration in ``all`` plus the code that honours it.
///
/// ```swift
/// guard !project.settings[.disabledUserSignup] else { throw AuthFailure.adminOnlyOperation }
/// ```
public struct SignInSetting: Sendable, Hashable {
    public enum Scope: Sendable, Hashable { case project, tenant }

    /// The values a setting takes: what a patch is checked against.
    public enum Kind: Sendable, Hashable {
        case bool
        case int(ClosedRange<Int>)
    }

    /// Where a setting sits in one scope's resource.
    public struct Placement: Sendable, Hashable {
        /// The field path on the wire (`signIn.email.enabled`, a tenant's `allowPasswordSignup`).
        public let path: String
        /// The wire field says the opposite of the setting (`signIn.email.passwordRequired` is email links off).
        public let negated: Bool
        public let defaultValue: SettingValue

        public init(_ path: String, negated: Bool = false, default defaultValue: SettingValue = .bool(false)) {
            self.path = path
            self.negated = negated
            self.defaultValue = defaultValue
        }

        /// The setting's value for a wire value, and back (the same map both ways).
        public func flipped(_ value: SettingValue) -> SettingValue {
            if negated, case .bool(let flag) = value { return .bool(!flag) }
            return value
        }
    }

    /// The key it is stored under, in the project's and each tenant's record.
    public let name: String
    public let project: Placement?
    public let tenant: Placement?
    /// Whether a tenant that has not set it works under its project's value (always, for a setting with no tenant
    /// placement, like `signIn.allowDuplicateEmails`); otherwise a tenant holds its own, with the tenant's default
    /// until set, as Identity Platform's tenants do.
    public let inheritedByTenants: Bool
    public let kind: Kind

    public init(_ name: String, project: Placement?, tenant: Placement?, inheritedByTenants: Bool = false,
                kind: Kind = .bool) {
        self.name = name
        self.project = project
        self.tenant = tenant
        self.inheritedByTenants = inheritedByTenants
        self.kind = kind
    }

    /// A setting at the same path in both scopes, stored under that path (`client.permissions.disabledUserSignup`).
    public init(_ path: String, inheritedByTenants: Bool = false, kind: Kind = .bool,
                default defaultValue: SettingValue = .bool(false)) {
        let placement = Placement(path, default: defaultValue)
        self.init(path, project: placement, tenant: placement, inheritedByTenants: inheritedByTenants, kind: kind)
    }

    public func placement(in scope: Scope) -> Placement? { scope == .project ? project : tenant }

    /// The value a scope has until it is set (a tenant that follows its project has the project's instead).
    public func defaultValue(in scope: Scope) -> SettingValue {
        placement(in: scope)?.defaultValue ?? project?.defaultValue ?? .bool(false)
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

    /// What the wire gives for a field in an `updateMask` but absent from the body: its zero, as Google's masks do.
    public var wireZero: SettingValue {
        switch kind {
        case .bool: .bool(false)
        case .int: .int(0)
        }
    }
}

extension SignInSetting {
    /// `signIn.email.enabled`, a tenant's `allowPasswordSignup`: email and password sign-in.
    public static let passwordSignIn = SignInSetting(
        "passwordSignIn", project: Placement("signIn.email.enabled", default: .bool(true)),
        tenant: Placement("allowPasswordSignup"))
    /// Email-link sign-in: `signIn.email.passwordRequired: false` in the project (it also needs email sign-in on), a
    /// tenant's `enableEmailLinkSignin`. On in a project record stored before the switch existed, as Hearth served it.
    public static let emailLinkSignIn = SignInSetting(
        "emailLinkSignIn", project: Placement("signIn.email.passwordRequired", negated: true, default: .bool(true)),
        tenant: Placement("enableEmailLinkSignin"))
    /// `signIn.anonymous.enabled`, a tenant's `enableAnonymousUser`. A new production project sets it off, as
    /// Firebase creates projects.
    public static let anonymousSignIn = SignInSetting(
        "anonymousSignIn", project: Placement("signIn.anonymous.enabled", default: .bool(true)),
        tenant: Placement("enableAnonymousUser"))
    /// `signIn.phoneNumber.enabled`: phone numbers as a first factor (MFA's SMS is the `mfa` config's). A new
    /// production project sets it off, as in Firebase; a record stored before the switch existed has it on (the start
    /// log says so). Tenants follow their project.
    public static let phoneSignIn = SignInSetting(
        "phoneSignIn", project: Placement("signIn.phoneNumber.enabled", default: .bool(true)), tenant: nil,
        inheritedByTenants: true)
    /// `signIn.allowDuplicateEmails`: several accounts may share one email. Tenants follow their project.
    public static let allowDuplicateEmails = SignInSetting(
        "allowDuplicateEmails", project: Placement("signIn.allowDuplicateEmails"), tenant: nil, inheritedByTenants: true)
    /// `emailPrivacyConfig.enableImprovedEmailPrivacy`: email-enumeration protection.
    public static let enableImprovedEmailPrivacy = SignInSetting("emailPrivacyConfig.enableImprovedEmailPrivacy")
    /// `autodeleteAnonymousUsers`: anonymous accounts unused for 30 days are deleted by housekeeping.
    public static let autodeleteAnonymousUsers = SignInSetting("autodeleteAnonymousUsers")
    /// A tenant's `disableAuth`: no client may sign in or sign up (admin calls still work).
    public static let disableAuth = SignInSetting("disableAuth", project: nil, tenant: Placement("disableAuth"))
    /// A tenant's `inheritance.emailSendingConfig`: its emails use the project's templates. Off (Firebase's default),
    /// they use the built-in text, as Firebase sends a tenant's emails without the project's customizations.
    public static let inheritsEmailSending = SignInSetting(
        "inheritsEmailSending", project: nil, tenant: Placement("inheritance.emailSendingConfig"))
    /// `client.permissions.disabledUserSignup`: end users cannot create accounts (sign-up, a first sign-in with a
    /// provider, a phone number or an email link answer `ADMIN_ONLY_OPERATION`); administrators still can.
    public static let disabledUserSignup = SignInSetting("client.permissions.disabledUserSignup")
    /// `client.permissions.disabledUserDeletion`: end users cannot delete their own accounts.
    public static let disabledUserDeletion = SignInSetting("client.permissions.disabledUserDeletion")

    /// Every declared setting.
    public static let all: [SignInSetting] = [
        passwordSignIn, emailLinkSignIn, anonymousSignIn, phoneSignIn, allowDuplicateEmails, enableImprovedEmailPrivacy,
        autodeleteAnonymousUsers, disableAuth, inheritsEmailSending, disabledUserSignup, disabledUserDeletion,
    ]

    /// The declared settings that may be set in `scope`.
    public static func settable(in scope: Scope) -> [SignInSetting] { all.filter { $0.placement(in: scope) != nil } }
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

/// The declared settings of a project or a tenant, by name; what is not set has its default in that scope.
/// Stored as a JSON object of the values set.
public struct DeclaredSettings: Sendable, Equatable, Codable {
    private var values: [String: SettingValue]
    /// Whose settings these are: it decides the defaults. Not stored; the record that holds them says it.
    public var scope: SignInSetting.Scope

    public init(scope: SignInSetting.Scope = .project) {
        values = [:]
        self.scope = scope
    }

    public init(from decoder: any Decoder) throws {
        values = try [String: SettingValue](from: decoder)
        scope = .project
    }

    public func encode(to encoder: any Encoder) throws { try values.encode(to: encoder) }

    /// The value in force: the one set, or the scope's default.
    public subscript(setting: SignInSetting) -> SettingValue {
        get { values[setting.name] ?? setting.defaultValue(in: scope) }
        set { values[setting.name] = newValue }
    }

    public func isSet(_ setting: SignInSetting) -> Bool { values[setting.name] != nil }

    /// Back to the default.
    public mutating func reset(_ setting: SignInSetting) { values[setting.name] = nil }

    public func bool(_ setting: SignInSetting) -> Bool {
        if case .bool(let flag) = self[setting] { return flag }
        return false
    }

    /// Sets a setting unless it has it already: how records stored before a setting was declared bring their value.
    mutating func adopt(_ setting: SignInSetting, _ value: Bool?) {
        if let value, !isSet(setting) { self[setting] = .bool(value) }
    }

    /// What a tenant works under: its own values, its project's for inherited settings it has not set, and a
    /// tenant's defaults for the rest.
    public static func inForce(project: DeclaredSettings, tenant: DeclaredSettings,
                               of settings: [SignInSetting] = SignInSetting.all) -> DeclaredSettings {
        var merged = DeclaredSettings(scope: .tenant)
        var own = tenant
        own.scope = .tenant
        for setting in settings {
            if setting.tenant != nil, own.isSet(setting) || !setting.inheritedByTenants {
                merged[setting] = own[setting]  // set by the tenant, or the tenant's default
            } else if setting.inheritedByTenants {
                merged[setting] = project[setting]
            }
        }
        return merged
    }
}

/// A record that holds declared settings reads and writes its switches by declaration:
/// `project.settings[.allowDuplicateEmails]`, `tenant[.disableAuth] = true`.
public protocol HoldsDeclaredSettings {
    var declared: DeclaredSettings { get set }
}

extension HoldsDeclaredSettings {
    public subscript(setting: SignInSetting) -> Bool {
        get { declared.bool(setting) }
        set { declared[setting] = .bool(newValue) }
    }
}
