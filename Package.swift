// swift-tools-version:6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "hearth",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .executable(name: "hearth", targets: ["HearthCLI"]),
        .library(name: "HearthServer", targets: ["HearthServer"]),
        .library(name: "HearthWire", targets: ["HearthWire"]),
        .library(name: "HearthCore", targets: ["HearthCore"]),
        .library(name: "HearthAdmin", targets: ["HearthAdmin"]),
        .library(name: "HearthAuth", targets: ["HearthAuth"]),
    ],
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
    ],
    targets: [
        // The domain: accounts, passwords, tokens, the store protocol. No HTTP, NIO or SQL driver.
        .target(name: "HearthCore", dependencies: [
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "CryptoExtras", package: "swift-crypto"),
            .product(name: "SwiftASN1", package: "swift-asn1"),
            .product(name: "X509", package: "swift-certificates"),
        ], swiftSettings: swiftSettings),
        // Identity Toolkit JSON shapes. Foundation only: shared by the server and the SDKs.
        .target(name: "HearthWire", swiftSettings: swiftSettings),
        .target(name: "HearthSQLite", dependencies: [
            "HearthCore", .product(name: "SQLiteNIO", package: "sqlite-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
        ], swiftSettings: swiftSettings),
        .target(name: "HearthPostgres", dependencies: [
            "HearthCore", .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
        ], swiftSettings: swiftSettings),
        // The storage contract suite, a library linked only by test targets.
        .target(name: "HearthStoreContract", dependencies: ["HearthCore"], swiftSettings: swiftSettings),
        // A throwaway PostgreSQL cluster for tests (initdb/pg_ctl). Linked only by test targets.
        .target(name: "HearthPostgresTestSupport", dependencies: [
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swiftSettings),
        // Real third-party servers the tests drive (an SMTP sink, headless Chromium). Linked only by test targets.
        .target(name: "HearthTestSupport", resources: [.copy("smtp_sink.py"), .copy("test_idp.py")],
                swiftSettings: swiftSettings),
        // Email: templates in the user's language, an SMTP client on SwiftNIO, the outbox delivery worker.
        .target(name: "HearthMail", dependencies: [
            "HearthCore",
            .product(name: "Mustache", package: "swift-mustache"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "Logging", package: "swift-log"),
        ], swiftSettings: swiftSettings),
        // SMS: localized verification texts, a webhook sender and Twilio's API over async-http-client.
        .target(name: "HearthSMS", dependencies: [
            "HearthCore",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOFoundationCompat", package: "swift-nio"),
        ], swiftSettings: swiftSettings),
        // Federated sign-in: OIDC ID tokens (discovery, JWKS) and OAuth 2.0 profiles, over async-http-client.
        .target(name: "HearthFederation", dependencies: [
            "HearthCore",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "NIOFoundationCompat", package: "swift-nio"),
        ], swiftSettings: swiftSettings),
        .target(name: "HearthServer", dependencies: [
            "HearthCore", "HearthWire", "HearthMail", "HearthSMS", "HearthFederation",
            .product(name: "Mustache", package: "swift-mustache"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOFoundationCompat", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        ], swiftSettings: swiftSettings),
        // Server-side Swift SDK: verify tokens and cookies, custom tokens, user management. Not the server.
        .target(name: "HearthAdmin", dependencies: [
            "HearthWire",
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOFoundationCompat", package: "swift-nio"),
        ], swiftSettings: swiftSettings),
        // Client SDK: FirebaseAuth's API. HearthWire and Foundation only, so it builds without the server.
        .target(name: "HearthAuth", dependencies: ["HearthWire"], swiftSettings: swiftSettings),
        // The Firebase guides' Swift snippets (../shared/seeds), nearly verbatim, against HearthAuth. Swift 5 mode,
        // as the guides are written.
        .target(name: "SeedExamples", dependencies: ["HearthAuth"], swiftSettings: [.swiftLanguageMode(.v5)]),
        .executableTarget(name: "HearthCLI", dependencies: [
            "HearthServer", "HearthSQLite", "HearthPostgres", "HearthMail", "HearthSMS",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Configuration", package: "swift-configuration"),
            .product(name: "SystemPackage", package: "swift-system"),
        ], swiftSettings: swiftSettings),

        .testTarget(name: "HearthCoreTests", dependencies: ["HearthCore", "HearthStoreContract", "HearthTestSupport"]),
        .testTarget(name: "HearthWireTests", dependencies: ["HearthWire"]),
        .testTarget(name: "HearthAuthTests", dependencies: ["HearthAuth", "HearthWire"]),
        .testTarget(name: "HearthAuthEndToEndTests", dependencies: [
            "HearthAuth", "SeedExamples", "HearthServer", "HearthSQLite", "HearthCore", "HearthMail", "HearthTestSupport",
            "HearthAdmin", "HearthWire", .product(name: "Hummingbird", package: "hummingbird"),
        ]),
        .testTarget(name: "HearthMailTests", dependencies: ["HearthMail", "HearthCore", "HearthTestSupport"]),
        .testTarget(name: "HearthSMSTests", dependencies: [
            "HearthSMS", "HearthCore",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "NIOFoundationCompat", package: "swift-nio"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ]),
        .testTarget(name: "HearthSQLiteTests", dependencies: [
            "HearthSQLite", "HearthStoreContract", .product(name: "SQLiteNIO", package: "sqlite-nio"),
        ]),
        .testTarget(name: "HearthPostgresTests", dependencies: [
            "HearthPostgres", "HearthStoreContract", "HearthPostgresTestSupport", .product(name: "PostgresNIO", package: "postgres-nio"),
        ]),
        .testTarget(name: "HearthEndToEndTests", dependencies: [
            "HearthServer", "HearthSQLite", "HearthPostgres", "HearthCore", "HearthMail", "HearthTestSupport",
            "HearthPostgresTestSupport",
            .product(name: "HummingbirdTesting", package: "hummingbird"),
        ]),
        .testTarget(name: "HearthAdminTests", dependencies: [
            "HearthAdmin", "HearthServer", "HearthSQLite", "HearthCore", "HearthWire",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOFoundationCompat", package: "swift-nio"),
        ]),
        .testTarget(name: "HearthServerTests", dependencies: [
            "HearthServer", "HearthCore", "HearthWire", "HearthTestSupport",
            .product(name: "Configuration", package: "swift-configuration"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
        ], resources: [.copy("Fixtures")]),
    ]
)
