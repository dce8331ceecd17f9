// swift-tools-version:6.1
import PackageDescription
#if os(Linux)
import Glibc
#endif

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

/// How the release `hearth` is linked on Linux: lld without exported symbols, and with packed relative relocations
/// (DT_RELR) where the build machine's glibc can load them (2.36 or later; the binary then needs it where it runs).
/// The relocations of a position-independent Swift binary are megabytes, read and kept resident at every start:
/// packed, the idle server's RSS falls from about 46 to 40 MB (docs/performance.md).
let releaseLinking: [LinkerSetting] = {
    #if os(Linux)
    var flags = ["-use-ld=lld", "-Xlinker", "--no-export-dynamic"]
    typealias LibcVersion = @convention(c) () -> UnsafePointer<CChar>
    let version = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "gnu_get_libc_version")
        .map { String(cString: unsafeBitCast($0, to: LibcVersion.self)()) }?
        .split(separator: ".").compactMap { Int($0) } ?? []
    if version.count >= 2, (version[0], version[1]) >= (2, 36) { flags += ["-Xlinker", "-z", "-Xlinker", "pack-relative-relocs"] }
    return [.unsafeFlags(flags, .when(platforms: [.linux], configuration: .release))]
    #else
    return []
    #endif
}()

/// A third-party library the server needs, only with the `Server` trait. The trait is on by default, so this
/// repository builds and tests everything; an app that wants HearthAuth alone turns it off and resolves no other
/// package:
///
///     .package(path: "../hearth", traits: [])
func server(_ product: String, _ package: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: ["Server"]))
}

let package = Package(
    name: "hearth",
    // FirebaseAuth 12's platforms, for HearthAuth, except macOS: the server (Hummingbird) needs macOS 14, and one
    // manifest has one list. The server's other dependencies ask for more than iOS 15 too; it never builds there.
    platforms: [.iOS(.v15), .macCatalyst(.v15), .macOS(.v14), .tvOS(.v15), .watchOS(.v7)],
    products: [
        .executable(name: "hearth", targets: ["HearthCLI"]),
        .library(name: "HearthServer", targets: ["HearthServer"]),
        .library(name: "HearthWire", targets: ["HearthWire"]),
        .library(name: "HearthCore", targets: ["HearthCore"]),
        .library(name: "HearthAdmin", targets: ["HearthAdmin"]),
        .library(name: "HearthAuth", targets: ["HearthAuth"]),
    ],
    traits: [.default(enabledTraits: ["Server"]), .trait(name: "Server", description: "The server, the CLI, HearthAdmin and their dependencies")],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "4.1.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.0"),
        .package(url: "https://github.com/vapor/sqlite-nio.git", from: "1.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.25.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        // Settings from flags, HEARTH_* variables, secret files and the config file, with redaction (Logging trait).
        .package(url: "https://github.com/apple/swift-configuration.git", from: "1.4.0", traits: [.defaults, "Logging"]),
        .package(url: "https://github.com/apple/swift-system.git", from: "1.5.0"),
        // Spans for requests, store calls and outbound calls; exported over OTLP/HTTP when configured (off by default).
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.1.0"),
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // The domain: accounts, passwords, tokens, the store protocol. No HTTP, NIO or SQL driver.
        .target(name: "HearthCore", dependencies: [
            server("Crypto", "swift-crypto"),
            server("CryptoExtras", "swift-crypto"),
            server("SwiftASN1", "swift-asn1"),
            server("X509", "swift-certificates"),
            server("Tracing", "swift-distributed-tracing"),
        ], swiftSettings: swiftSettings),
        // Identity Toolkit JSON shapes. Foundation only: shared by the server and the SDKs.
        .target(name: "HearthWire", swiftSettings: swiftSettings),
        // The SQL schema and its runner, written once for both SQL stores (dialect differences as data).
        .target(name: "HearthSchema", swiftSettings: swiftSettings),
        // Every SQL statement, written once for both dialects; SQLite and PostgreSQL are thin drivers under it.
        .target(name: "HearthSQL", dependencies: ["HearthCore", "HearthSchema"], swiftSettings: swiftSettings),
        .target(name: "HearthSQLite", dependencies: [
            "HearthCore", "HearthSchema", "HearthSQL", server("SQLiteNIO", "sqlite-nio"),
            server("NIOConcurrencyHelpers", "swift-nio"),
        ], swiftSettings: swiftSettings),
        .target(name: "HearthPostgres", dependencies: [
            "HearthCore", "HearthSchema", "HearthSQL", server("PostgresNIO", "postgres-nio"),
            server("NIOSSL", "swift-nio-ssl"),
        ], swiftSettings: swiftSettings),
        // The storage contract suite, a library linked only by test targets.
        .target(name: "HearthStoreContract", dependencies: ["HearthCore"], swiftSettings: swiftSettings),
        // A throwaway PostgreSQL cluster for tests (initdb/pg_ctl). Linked only by test targets.
        .target(name: "HearthPostgresTestSupport", dependencies: [
            "HearthTestSupport",
            server("PostgresNIO", "postgres-nio"),
            server("Logging", "swift-log"),
        ], swiftSettings: swiftSettings),
        // Real third-party servers the tests drive (an SMTP sink, headless Chromium). Linked only by test targets.
        .target(name: "HearthTestSupport", resources: [.copy("smtp_sink.py"), .copy("test_idp.py"), .copy("blocking_functions.py"),
                                                       .copy("send_receiver.py"),
                                                       .copy("webhook_receiver.py"), .copy("passkey_authenticator.py")],
                swiftSettings: swiftSettings),
        // Email: templates in the user's language, an SMTP client on SwiftNIO, the outbox delivery worker.
        .target(name: "HearthMail", dependencies: [
            "HearthCore",
            server("Mustache", "swift-mustache"),
            server("NIOCore", "swift-nio"),
            server("NIOPosix", "swift-nio"),
            server("NIOSSL", "swift-nio-ssl"),
            server("Logging", "swift-log"),
        ], swiftSettings: swiftSettings),
        // SMS: localized verification texts, a webhook sender and Twilio's API over async-http-client.
        .target(name: "HearthSMS", dependencies: [
            "HearthCore",
            server("AsyncHTTPClient", "async-http-client"),
            server("Crypto", "swift-crypto"),
            server("NIOHTTP1", "swift-nio"),
            server("NIOFoundationCompat", "swift-nio"),
        ], swiftSettings: swiftSettings),
        // Federated sign-in: OIDC ID tokens (discovery, JWKS), OAuth 2.0 profiles and Game Center signatures, over
        // async-http-client.
        .target(name: "HearthFederation", dependencies: [
            "HearthCore",
            server("AsyncHTTPClient", "async-http-client"),
            server("Logging", "swift-log"),
            server("JWTKit", "jwt-kit"),
            server("Crypto", "swift-crypto"),
            server("CryptoExtras", "swift-crypto"),
            server("X509", "swift-certificates"),
            server("NIOFoundationCompat", "swift-nio"),
        ], swiftSettings: swiftSettings),
        // Writes text files into a Swift source (the console's page, style and script): the EmbedFiles plugin's tool.
        .executableTarget(name: "EmbedFilesTool", swiftSettings: swiftSettings),
        .plugin(name: "EmbedFiles", capability: .buildTool(), dependencies: ["EmbedFilesTool"]),
        .target(name: "HearthServer", dependencies: [
            "HearthCore", "HearthWire", "HearthMail", "HearthSMS", "HearthFederation",
            server("Mustache", "swift-mustache"),
            server("ServiceLifecycle", "swift-service-lifecycle"),
            server("HummingbirdBcrypt", "hummingbird-auth"),
            server("Hummingbird", "hummingbird"),
            server("NIOPosix", "swift-nio"),
            server("NIOFoundationCompat", "swift-nio"),
            server("Logging", "swift-log"),
            server("Metrics", "swift-metrics"),
            server("Prometheus", "swift-prometheus"),
            server("NIOHTTPTypes", "swift-nio-extras"),
            server("Tracing", "swift-distributed-tracing"),
            server("OTel", "swift-otel"),
        ], exclude: ["Pages/Console/console.html", "Pages/Console/console.css", "Pages/Console/console.js",
                     "Pages/Console/sign-in-methods.js", "Pages/Console/templates.js"],
        swiftSettings: swiftSettings, plugins: ["EmbedFiles"]),
        // Server-side Swift SDK: verify tokens and cookies, custom tokens, user management. Not the server.
        .target(name: "HearthAdmin", dependencies: [
            "HearthWire",
            server("JWTKit", "jwt-kit"),
            server("AsyncHTTPClient", "async-http-client"),
            server("NIOHTTP1", "swift-nio"),
            server("NIOFoundationCompat", "swift-nio"),
        ], swiftSettings: swiftSettings),
        // Client SDK: FirebaseAuth's API. HearthWire and Foundation only, so it builds without the server.
        .target(name: "HearthAuth", dependencies: ["HearthWire"], swiftSettings: swiftSettings),
        // The Firebase guides' Swift snippets (../shared/seeds), nearly verbatim, against HearthAuth. Swift 5 mode,
        // as the guides are written.
        .target(name: "SeedExamples", dependencies: ["HearthAuth"], swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(name: "HearthCLI", dependencies: [
            "HearthServer", "HearthSQLite", "HearthPostgres", "HearthMail", "HearthSMS", "HearthWire",
            server("AsyncHTTPClient", "async-http-client"),
            server("NIOHTTP1", "swift-nio"),
            server("ArgumentParser", "swift-argument-parser"),
            server("Configuration", "swift-configuration"),
            server("SystemPackage", "swift-system"),
        ], swiftSettings: swiftSettings, linkerSettings: releaseLinking, plugins: ["EmbedFiles"]),

        .testTarget(name: "HearthCoreTests", dependencies: ["HearthCore", "HearthStoreContract", "HearthTestSupport",
                                                         server("Crypto", "swift-crypto")]),
        .testTarget(name: "HearthWireTests", dependencies: ["HearthWire"]),
        .testTarget(name: "HearthAuthTests", dependencies: ["HearthAuth", "HearthWire", "HearthTestSupport"]),
        .testTarget(name: "HearthAuthEndToEndTests", dependencies: [
            "HearthAuth", "SeedExamples", "HearthServer", "HearthSQLite", "HearthCore", "HearthMail", "HearthTestSupport",
            "HearthAdmin", "HearthWire", server("Hummingbird", "hummingbird"),
        ]),
        .testTarget(name: "HearthMailTests", dependencies: ["HearthMail", "HearthCore", "HearthTestSupport"]),
        .testTarget(name: "HearthSMSTests", dependencies: [
            "HearthSMS", "HearthCore",
            server("Hummingbird", "hummingbird"),
            server("HummingbirdTesting", "hummingbird"),
            server("Crypto", "swift-crypto"),
            server("NIOFoundationCompat", "swift-nio"),
            server("HTTPTypes", "swift-http-types"),
        ]),
        .testTarget(name: "HearthSQLiteTests", dependencies: [
            "HearthSQLite", "HearthSQL", "HearthSchema", "HearthStoreContract", server("SQLiteNIO", "sqlite-nio"),
        ], exclude: ["Fixtures"]),
        .testTarget(name: "HearthPostgresTests", dependencies: [
            "HearthPostgres", "HearthSQL", "HearthSQLite", "HearthSchema", "HearthStoreContract", "HearthPostgresTestSupport",
            server("PostgresNIO", "postgres-nio"),
        ]),
        .testTarget(name: "HearthEndToEndTests", dependencies: [
            "HearthServer", "HearthSQLite", "HearthPostgres", "HearthSQL", "HearthCore", "HearthMail", "HearthTestSupport",
            "HearthPostgresTestSupport", "HearthStoreContract", "HearthWire",
            server("HummingbirdTesting", "hummingbird"), server("PostgresNIO", "postgres-nio"),
        ]),
        .testTarget(name: "HearthAdminTests", dependencies: [
            "HearthAdmin", "HearthServer", "HearthSQLite", "HearthCore", "HearthWire", "HearthTestSupport",
            server("Hummingbird", "hummingbird"),
            server("HummingbirdTesting", "hummingbird"),
            server("AsyncHTTPClient", "async-http-client"),
            server("NIOFoundationCompat", "swift-nio"),
        ]),
        .testTarget(name: "HearthServerTests", dependencies: [
            "HearthServer", "HearthCore", "HearthWire", "HearthTestSupport",
            server("Configuration", "swift-configuration"),
            server("HummingbirdTesting", "hummingbird"),
            server("JWTKit", "jwt-kit"),
            server("HTTPTypes", "swift-http-types"),
        ], resources: [.copy("Fixtures")]),
    ]
)
