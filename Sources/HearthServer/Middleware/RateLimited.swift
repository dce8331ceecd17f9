import Foundation
import HearthCore
import HearthWire
import Hummingbird
import Logging
import Metrics
import NIOCore

/// An abuse limit of the route table, as middleware: which keys a request counts under, each slot reserved in the
/// store before the handler runs (``RateLimiter/reserve(_:)``) and given back when the event turns out not to count.
/// The keys come from the request's address and, where the rule is per account, from the body's `email` (collected
/// by ``BodyLimit``, which runs first). Over a limit, the answer is `TOO_MANY_ATTEMPTS_TRY_LATER` before any work is
/// done (a locked-out guesser costs no scrypt).
struct RateLimited: RouterMiddleware {
    typealias Context = HearthRequestContext

    enum Policy {
        /// Failed sign-ins, per email and per address; successful ones are not limited (scrypt bounds them).
        case failedSignIns
        /// Accounts created, per address (linking with an `idToken` creates none).
        case signUps
        /// `sendOobCode` emails, per recipient and per address, so the endpoint cannot flood an inbox.
        case emails
        /// Failed console sign-ins, per operator and per address: the operator is locked out for the window.
        case consoleSignIns
        /// Redirect sign-ins started per address (`createAuthUri` with a `providerId` stores a session each).
        case redirectSessions
        /// Passkey ceremonies started per address (`passkeySignIn:start` and `passkeyEnrollment:start` store a
        /// challenge each).
        case passkeyChallenges
    }

    let policy: Policy
    let services: HearthServices

    func handle(_ request: Request, context: HearthRequestContext,
                next: (Request, HearthRequestContext) async throws -> Response) async throws -> Response {
        let limits = services.configuration.rateLimits
        guard limits.enabled, !context.isAdmin else { return try await next(request, context) }  // admins are not limited
        let body = context.body
        let tenant = body.peek("tenantId").flatMap { $0.isEmpty ? nil : $0 }  // "" is no tenant, as everywhere else
        let address = RateLimitKey.address(
            context.clientAddress(of: request, trustForwardedFor: services.configuration.trustForwardedFor))
        let check = LimitCheck(services: services, project: context.project)
        switch policy {
        case .failedSignIns, .consoleSignIns:
            // Per account, and an account lives in its tenant: one tenant's guesser cannot lock another's user out.
            // The slot is taken before the password is checked, so racing guesses cannot all be hashed; a sign-in
            // that is not a wrong guess gives it back.
            let console = policy == .consoleSignIns
            let account = (console ? "" : tenant.map { "tenant/\($0)/" } ?? "") + RateLimitKey.email(body.peek("email"))
            let keys = [((console ? "console-failed-email:" : "signin-failed-email:") + account, limits.failedSignInsPerEmail),
                        ((console ? "console-failed-address:" : "signin-failed-address:") + address, limits.failedSignInsPerAddress)]
            // Sign-ins to one account take turns in this process, so right passwords queue rather than being refused.
            // A sign-in that succeeds gives the slots back in its own unit of work (HeldSlots), else here.
            return try await services.limiter.turns.inTurn(keys[0].0) {
                let held = try await check.reserve(keys)
                let slots = HeldSlots(held)
                do {
                    let response = try await RateLimiter.$heldUntilSuccess.withValue(slots) { try await next(request, context) }
                    if !slots.isReleased { await check.release(held) }
                    return response
                } catch let failure as AuthFailure where failure.isFailedGuess {
                    throw failure  // a wrong guess: the slot stays taken
                } catch {
                    if !slots.isReleased { await check.release(held) }
                    throw error
                }
            }
        case .signUps:
            guard body.peek("idToken") == nil else { return try await next(request, context) }
            // Released when no account was created.
            return try await check.reserving([("signup-address:" + address, limits.signUpsPerAddress)], keepOnFailure: false) {
                try await next(request, context)
            }
        case .redirectSessions:
            guard body.peek("providerId") != nil else { return try await next(request, context) }  // no session stored
            // Counted whatever the outcome: a refused start costs little, but counts.
            _ = try await check.reserve([("redirect-session-address:" + address, limits.redirectSessionsPerAddress)])
            return try await next(request, context)
        case .passkeyChallenges:
            _ = try await check.reserve([("passkey-challenge-address:" + address, limits.passkeyChallengesPerAddress)])
            return try await next(request, context)
        case .emails:
            // Keyed by the address the email goes to: keyed by an ID token it would start afresh with every
            // refresh, letting one account flood any address it sets as its own. An inbox is one inbox whatever
            // tenant writes to it, so this key is deliberately not per tenant.
            // The address the message goes to, by the request's type: a decoy `email` beside an ID token must not
            // move the count to an inbox that receives nothing.
            var recipient: String?
            switch body.oobRequestType {
            case "VERIFY_AND_CHANGE_EMAIL": recipient = body.peek("newEmail")
            case "VERIFY_EMAIL" where body.peek("idToken") != nil: recipient = nil
            default: recipient = body.peek("email")
            }
            if recipient == nil, let idToken = body.peek("idToken"), let project = context.project {
                recipient = try? await services.accounts.sessions.lookup(in: project, idToken: idToken).email
            }
            let keys = [("email-recipient:" + RateLimitKey.email(recipient), limits.emailsPerRecipient),
                        ("email-address:" + address, limits.emailsPerAddress)]
            // Refused requests keep their slot too (an unknown address must not be probed for free); only a store
            // that failed before queueing the message gives it back.
            return try await check.reserving(keys, keepOnFailure: true) { try await next(request, context) }
        }
    }
}

/// Reserves and releases keys against their rules: shared by the route table's limits and the SMS limits.
struct LimitCheck {
    let services: HearthServices
    let project: ProjectContext?

    /// Takes a slot under every one of `keys` before the work (``RateLimiter/reserve(_:)``), or throws `failure`:
    /// counted (`hearth_rate_limit_refusals_total{limit}`) and audited (`rate-limited`), naming the rule, never the
    /// key's value (an email, an address). The caller releases the slots when the event turns out not to count.
    func reserve(_ keys: [(String, RateLimiter.Rule)], else failure: AuthFailure = .tooManyAttempts) async throws
        -> RateLimiter.Reservation {
        do {
            return try await services.limiter.reserve(keys)
        } catch let refusal as RateLimiter.Refusal {
            await refuse(refusal.key, refusal.rule)
            throw failure
        }
    }

    /// Runs `work` holding a slot under each of `keys`. When `work` throws, the slots are given back unless
    /// `keepOnFailure` and the failure is the client's (an ``AuthFailure`` or ``APIError``): a store or gateway fault
    /// never costs a caller their budget.
    func reserving<T>(_ keys: [(String, RateLimiter.Rule)], keepOnFailure: Bool,
                      _ work: () async throws -> T) async throws -> T {
        let held = try await reserve(keys)
        do {
            return try await work()
        } catch {
            if !(keepOnFailure && (error is AuthFailure || error is APIError)) { await release(held) }
            throw error
        }
    }

    func release(_ reservation: RateLimiter.Reservation) async {
        do {
            try await services.limiter.release(reservation)
        } catch {
            services.logger.warning("rate-limit slot not given back", metadata: ["error": "\(error)"])
        }
    }

    /// Counted every time; audited once per key and window, so a flood of refusals cannot flood the audit log.
    private func refuse(_ key: String, _ rule: RateLimiter.Rule) async {
        let name = Self.rule(of: key)
        Counter(label: "hearth_rate_limit_refusals_total", dimensions: [("limit", name)]).increment()
        guard services.limiter.isFirstRefusal(key, rule) else { return }
        await services.audit.record(kind: "rate-limited", projectID: project?.id ?? services.configuration.projectID,
                                    localID: nil, outcome: .failure, details: ["limit": name])
    }

    private static func rule(of key: String) -> String { String(key.prefix(while: { $0 != ":" })) }
}

/// How addresses are counted: IPv4 as is, IPv6 per /64 (one subscriber's prefix; counting single addresses would
/// let a client rotate through 2^64 of them).
enum RateLimitKey {
    /// An email as a key: normalized, and a digest when longer than any address (a 200 KB "email" makes no 200 KB row).
    static func email(_ given: String?) -> String {
        let normalized = EmailAddress.normalized(given ?? "")
        return normalized.utf8.count <= 320 ? normalized : "sha256:" + storageDigest(normalized)
    }

    static func address(_ address: String) -> String {
        guard address.contains(":"), case .v6(let socket)? = try? SocketAddress(ipAddress: address, port: 0) else {
            return address
        }
        // An IPv4 client of a dual-stack listener arrives as ::ffff:a.b.c.d, and one behind NAT64 as 64:ff9b::a.b.c.d:
        // each is its IPv4 address, not one /64 that every IPv4 client would share.
        let embedded: String? = withUnsafeBytes(of: socket.address.sin6_addr) { bytes in
            let mapped = bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff
            let nat64 = [0x00, 0x64, 0xff, 0x9b].elementsEqual(bytes[0..<4]) && bytes[4..<12].allSatisfy { $0 == 0 }
            return mapped || nat64 ? bytes[12..<16].map(String.init).joined(separator: ".") : nil
        }
        if let embedded { return embedded }
        let prefix = withUnsafeBytes(of: socket.address.sin6_addr) { bytes in
            stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
        }
        return prefix.joined(separator: ":") + "::/64"
    }
}

extension Call {
    /// A number from a request, as limits key it and the store keeps it: E.164 (``PhoneNumber/normalized(_:)``) in
    /// production; as given in emulator mode, whose checks Firebase's emulator defines.
    func phoneNumber(_ given: String) -> String? {
        configuration.isEmulator ? (PhoneNumber.isValid(given) ? given : nil) : PhoneNumber.normalized(given)
    }
}

/// The SMS budget's reports (``SMSBudgetEvents``): refusals counted (`hearth_rate_limit_refusals_total{limit}`) and
/// audited once per key and window (`rate-limited`), a halt audited (`sms-prefix-halted`) and logged with what to do.
struct SMSBudgetReports: SMSBudgetEvents {
    let audit: AuditRecorder
    let logger: Logger

    func refused(_ limit: String, firstInWindow: Bool, in project: ProjectContext) async {
        Counter(label: "hearth_rate_limit_refusals_total", dimensions: [("limit", limit)]).increment()
        guard firstInWindow else { return }
        await audit.record(kind: "rate-limited", projectID: project.id, localID: nil, outcome: .failure,
                           details: ["limit": limit])
    }

    func halted(_ halt: SMSPumpingWatch.Halt, in project: ProjectContext) async {
        let until = ISO8601DateFormatter().string(from: halt.until)
        logger.warning("SMS to a number prefix halted: many distinct numbers asked for codes", metadata: [
            "prefix": "\(halt.prefix)", "numbers": "\(halt.numbers)", "until": "\(until)",
            "hint": "if the traffic is genuine, lift it under SMS halts in the console's Outbox view"])
        await audit.record(kind: SMSPumpingWatch.auditKind, projectID: project.id, localID: nil, outcome: .failure,
                           details: ["prefix": halt.prefix, "numbers": String(halt.numbers), "until": until])
    }

    func releaseFailed(_ error: any Error) async {
        logger.warning("rate-limit slot not given back", metadata: ["error": "\(error)"])
    }
}
