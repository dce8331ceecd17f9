import Foundation

/// FirebaseCore's `FirebaseOptions`, for the part authentication reads (`apiKey`, `projectID`); the other fields
/// are kept so that code setting them compiles.
///
/// ```swift
/// let options = FirebaseOptions(googleAppID: "1:123:ios:abc", gcmSenderID: "123")
/// options.apiKey = "my-key"
/// options.projectID = "my-app"
/// FirebaseApp.configure(options: options)
/// ```
public final class FirebaseOptions: @unchecked Sendable {
    public var apiKey: String?
    public var projectID: String?
    public var googleAppID: String
    public var gcmSenderID: String
    public var bundleID: String
    public var clientID: String?
    public var storageBucket: String?
    public var databaseURL: String?
    public var appGroupID: String?

    public init(googleAppID: String, gcmSenderID: String) {
        self.googleAppID = googleAppID
        self.gcmSenderID = gcmSenderID
        bundleID = Bundle.main.bundleIdentifier ?? ""
    }

    /// Reads a `GoogleService-Info.plist`; `nil` if the file is missing or is not one.
    public convenience init?(contentsOfFile plistPath: String) {
        guard let data = FileManager.default.contents(atPath: plistPath),
              let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        else { return nil }
        self.init(googleAppID: plist["GOOGLE_APP_ID"] as? String ?? "", gcmSenderID: plist["GCM_SENDER_ID"] as? String ?? "")
        apiKey = plist["API_KEY"] as? String
        projectID = plist["PROJECT_ID"] as? String
        clientID = plist["CLIENT_ID"] as? String
        storageBucket = plist["STORAGE_BUCKET"] as? String
        databaseURL = plist["DATABASE_URL"] as? String
        if let bundle = plist["BUNDLE_ID"] as? String { bundleID = bundle }
    }

    /// The main bundle's `GoogleService-Info.plist`, or `nil`.
    public static func defaultOptions() -> FirebaseOptions? {
        Bundle.main.path(forResource: "GoogleService-Info", ofType: "plist").flatMap(FirebaseOptions.init(contentsOfFile:))
    }

    /// What ``Auth`` needs of these options, for the app called `name`; `HEARTH_URL` or
    /// `FIREBASE_AUTH_EMULATOR_HOST` in the environment point it at Hearth.
    func authOptions(appName: String) -> AuthOptions {
        AuthOptions(apiKey: apiKey ?? "", projectID: projectID, appName: appName).pointedByEnvironment()
    }
}

/// FirebaseCore's `FirebaseApp`, so that an app's start-up code stays as written: `FirebaseApp.configure()`, then
/// `Auth.auth()` (or `Auth.auth(app:)` for a second app). Configuring sets the options ``Auth`` uses.
///
/// ```swift
/// FirebaseApp.configure()   // GoogleService-Info.plist, or HEARTH_API_KEY / HEARTH_URL from the environment
/// Auth.auth().addStateDidChangeListener { _, user in print(user?.uid ?? "signed out") }
/// ```
public final class FirebaseApp: @unchecked Sendable {
    /// The default app's name, as in FirebaseCore.
    public static let defaultName = "[DEFAULT]"
    private static let lock = NSLock()
    nonisolated(unsafe) private static var apps: [String: FirebaseApp] = [:]

    public let name: String
    public let options: FirebaseOptions
    let authOptions: AuthOptions

    private init(name: String, options: FirebaseOptions, authOptions: AuthOptions) {
        self.name = name
        self.options = options
        self.authOptions = authOptions
    }

    /// Configures the default app from the environment (`HEARTH_API_KEY`, `HEARTH_PROJECT_ID`, `HEARTH_URL`) or
    /// the main bundle's `GoogleService-Info.plist`. Like Firebase, stops the app when there is neither.
    public static func configure() {
        guard let found = AuthOptions.fromEnvironment() else {
            preconditionFailure("FirebaseApp.configure(): no GoogleService-Info.plist in the main bundle and no "
                                + "HEARTH_API_KEY in the environment. Add one, or call configure(options:).")
        }
        let options = FirebaseOptions(googleAppID: "", gcmSenderID: "")
        options.apiKey = found.apiKey
        options.projectID = found.projectID
        register(FirebaseApp(name: defaultName, options: options, authOptions: found))
    }

    /// Configures the default app with `options`.
    public static func configure(options: FirebaseOptions) {
        configure(name: defaultName, options: options)
    }

    /// Configures an app called `name` (its users are kept apart from other apps').
    public static func configure(name: String, options: FirebaseOptions) {
        register(FirebaseApp(name: name, options: options, authOptions: options.authOptions(appName: name)))
    }

    /// The default app, once configured.
    public static func app() -> FirebaseApp? { app(name: defaultName) }

    /// The app configured under `name`, or `nil`.
    public static func app(name: String) -> FirebaseApp? { lock.locked { apps[name] } }

    /// Every configured app by name, or `nil` if there is none (as in Firebase).
    public static var allApps: [String: FirebaseApp]? {
        lock.locked { apps.isEmpty ? nil : apps }
    }

    /// Forgets this app; its `Auth` keeps working until released.
    public func delete(_ completion: (Bool) -> Void) {
        let removed = Self.lock.locked { Self.apps.removeValue(forKey: name) != nil }
        completion(removed)
    }

    private static func register(_ app: FirebaseApp) {
        lock.locked { apps[app.name] = app }
        if app.name == defaultName { Auth.configure(app.authOptions) }
    }
}

extension Auth {
    /// The auth of a configured app, as `Auth.auth(app:)` in FirebaseAuth.
    ///
    /// ```swift
    /// FirebaseApp.configure(name: "staging", options: stagingOptions)
    /// let staging = Auth.auth(app: FirebaseApp.app(name: "staging")!)
    /// ```
    public class func auth(app: FirebaseApp) -> Auth {
        app.name == FirebaseApp.defaultName ? auth() : auth(options: app.authOptions)
    }
}
