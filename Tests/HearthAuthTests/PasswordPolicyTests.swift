import Foundation
@testable import HearthAuth
import Testing

/// `validatePassword`: the policy is a GET of `v2/passwordPolicy` (with the tenant), fetched once, and fetched again
/// after the server refuses a password (`PASSWORD_DOES_NOT_MEET_REQUIREMENTS`: the policy changed meanwhile).
@Suite struct PasswordPolicyTests {
    @Test func thePolicyIsFetchedOnceAndAgainAfterARefusal() async throws {
        let minimum = Locked(8)
        let transport = FakeTransport { path, _ in
            if path.hasSuffix("/v2/passwordPolicy") {
                return (200, ["customStrengthOptions": ["minPasswordLength": minimum.value, "containsNumericCharacter": true],
                              "allowedNonAlphanumericCharacters": ["!", "?"], "enforcementState": "ENFORCE",
                              "forceUpgradeOnSignin": false, "schemaVersion": 1])
            }
            return errorBody("PASSWORD_DOES_NOT_MEET_REQUIREMENTS : Missing password requirements: [Password must contain at least 10 characters]")
        }
        let auth = makeAuth(transport)
        auth.tenantID = "acme-x7k2p"
        let status = try await auth.validatePassword("abcdefgh")
        #expect(!status.isValid && status.meetsMinPasswordLength == true && status.containsNumericCharacter == false)
        #expect(status.containsUppercaseLetter == nil, "what the policy does not ask is not judged")
        #expect(try await auth.validatePassword("abcdefg1").isValid)
        let fetches = transport.requests(to: "/v2/passwordPolicy")
        #expect(fetches.count == 1, "cached")
        #expect(fetches.first?.request.method == "GET" && fetches.first?.request.url.query?.contains("tenantId=acme-x7k2p") == true)

        minimum.value = 10
        await #expect(throws: (any Error).self) { _ = try await auth.createUser(withEmail: "a@example.com", password: "abcdefg1") }
        #expect(try await !auth.validatePassword("abcdefg1").isValid, "read again after the refusal")
        #expect(transport.requests(to: "/v2/passwordPolicy").count == 2)
    }
}

/// A value shared with a `@Sendable` closure.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
