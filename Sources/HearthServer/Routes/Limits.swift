import Foundation
import HearthCore
import HearthWire
import Hummingbird
import Metrics
import NIOCore

/// An abuse limit of the route table, as middleware: which keys a request counts under, checked before the
/// handler and counted after it. The keys come from the request's address and, where the rule is per account,
/// from the body's `email` (collected by ``BodyLimit``, which runs first). Over a limit, the answer is
/// `TOO_MANY_ATTEMPTS_TRY_LATER` before any work is done (a locked-out guesser costs no scrypt).
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
        /// Passkey sign-ins started per address (`passkeySignIn:start` stores a challenge each, unauthenticated).
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
        switch policy {
        case .failedSignIns:
            // Per account, and an account lives in its tenant: one tenant's guesser cannot lock another's user out.
            let account = (tenant.map { "tenant/\($0)/" } ?? "") + RateLimitKey.email(body.peek("email"))
            let keys = [("signin-failed-email:" + account, limits.failedSignInsPerEmail),
                        ("signin-failed-address:" + address, limits.failedSignInsPerAddress)]
            // One password check per account at a time in this process, each checked against the failures before
            // it: racing guesses cannot all pass before the first is counted. Both keys' windows are read in one
            // query, and only a failure writes, so a successful sign-in costs the limits one read.
            return try await services.limiter.turns.inTurn(keys[0].0) {
                try await enforce(keys, in: context.project)
                do {
                    return try await next(request, context)
                } catch let failure as AuthFailure
                    where [.invalidPassword, .emailNotFound, .invalidLoginCredentials].contains(failure) {
                    await count(keys)
                    throw failure
                }
            }
        case .signUps:
            guard body.peek("idToken") == nil else { return try await next(request, context) }
            let keys = [("signup-address:" + address, limits.signUpsPerAddress)]
            try await enforce(keys, in: context.project)
            let response = try await next(request, context)
            await count(keys)
            return response
        case .redirectSessions:
            guard body.peek("providerId") != nil else { return try await next(request, context) }  // no session stored
            let keys = [("redirect-session-address:" + address, limits.redirectSessionsPerAddress)]
            let check = LimitCheck(services: services, project: context.project)
            _ = try await check.reserve(keys)  // counted whatever the outcome: a refused start costs little, but counts
            return try await next(request, context)
        case .passkeyChallenges:
            let keys = [("passkey-challenge-address:" + address, limits.passkeyChallengesPerAddress)]
            _ = try await LimitCheck(services: services, project: context.project).reserve(keys)
            return try await next(request, context)
        case .consoleSignIns:
            let keys = [("console-failed-email:" + RateLimitKey.email(body.peek("email")), limits.failedSignInsPerEmail),
                        ("console-failed-address:" + address, limits.failedSignInsPerAddress)]
            try await enforce(keys, in: context.project)
            do {
                return try await next(request, context)
            } catch let failure as AuthFailure where failure == .invalidLoginCredentials {
                await count(keys)
                throw failure
            }
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
            try await enforce(keys, in: context.project)
            do {
                let response = try await next(request, context)
                await count(keys)
                return response
            } catch {
                await count(keys)
                throw error
            }
        }
    }

    private func enforce(_ keys: [(String, RateLimiter.Rule)], in project: ProjectContext?) async throws {
        try await LimitCheck(services: services, project: project).enforce(keys)
    }

    private func count(_ keys: [(String, RateLimiter.Rule)]) async {
        await LimitCheck(services: services, project: nil).count(keys)
    }

}

/// Checks and counts keys against their rules: shared by the route table's limits and the SMS limits.
struct LimitCheck {
    let services: HearthServices
    let project: ProjectContext?

    /// Throws `failure` if any of `keys` is over its rule: counted (`hearth_rate_limit_refusals_total{limit}`)
    /// and audited (`rate-limited`), naming the rule, never the key's value (an email, an address).
    func enforce(_ keys: [(String, RateLimiter.Rule)], else failure: AuthFailure = .tooManyAttempts) async throws {
        if let (key, rule) = try await services.limiter.firstRefused(keys) {
            await refuse(key, rule)
            throw failure
        }
    }

    /// As ``enforce(_:else:)``, but each key's slot is taken before the work (``RateLimiter/reserve(_:_:)``), so
    /// racing requests cannot all pass: the caller releases them when the event turns out not to count.
    func reserve(_ keys: [(String, RateLimiter.Rule)]) async throws -> [RateLimiter.Reservation] {
        var taken: [RateLimiter.Reservation] = []
        for (key, rule) in keys {
            guard let reservation = try await services.limiter.reserve(key, rule) else {
                await release(taken)
                await refuse(key, rule)
                throw AuthFailure.tooManyAttempts
            }
            taken.append(reservation)
        }
        return taken
    }

    func release(_ reservations: [RateLimiter.Reservation]) async {
        for reservation in reservations {
            do {
                try await services.limiter.release(reservation)
            } catch {
                services.logger.warning("rate-limit slot not given back", metadata: ["error": "\(error)"])
            }
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

    /// Counts the keys. A store that cannot count is logged, not passed on: the request itself went through.
    func count(_ keys: [(String, RateLimiter.Rule)]) async {
        do {
            try await services.limiter.record(keys)
        } catch {
            services.logger.warning("rate-limit counter not written",
                                    metadata: ["limits": .string(keys.map { Self.rule(of: $0.0) }.joined(separator: ",")),
                                               "error": "\(error)"])
        }
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
    /// Verification SMS, per number, per address and per number prefix (`QUOTA_EXCEEDED` beyond them), checked where
    /// the number is known (it comes from the body, a pending credential or an enrolled factor, depending on the
    /// route). A prefix that is being pumped (``SMSPumpingWatch``) is halted: refused until the halt ends or an
    /// operator lifts it. Test numbers send nothing, so they count towards no prefix.
    func sendingSMS(to number: String, _ send: () async throws -> String) async throws -> String {
        let limits = configuration.rateLimits
        let project = try clientProject
        let watched = limits.enabled && project.settings.testPhoneNumbers?[number] == nil
        let prefix = "sms-prefix:\(project.id)/" + SMSPumpingWatch.prefix(of: number)
        let keys = [("sms-number:" + number, limits.smsPerNumber),
                    ("sms-address:" + RateLimitKey.address(clientAddress), limits.smsPerAddress)]
            + (watched ? [(prefix, limits.smsPerPrefix)] : [])
        let check = LimitCheck(services: services, project: context.project)
        if watched, try await services.smsPumping.halt(covering: number, projectID: project.id) != nil {
            Counter(label: "hearth_rate_limit_refusals_total", dimensions: [("limit", "sms-prefix-halt")]).increment()
            throw AuthFailure.quotaExceeded
        }
        if limits.enabled { try await check.enforce(keys, else: .quotaExceeded) }
        do {
            let sessionInfo = try await send()
            if limits.enabled { await check.count(keys) }
            if watched { await notePumping(number, in: project) }
            return sessionInfo
        } catch let error as SMSDeliveryFailure {
            services.logger.error("SMS not sent", metadata: ["error": "\(error.reason)",
                "hint": "configure sms.webhook or sms.twilio in the config file (see docs/sign-in-methods.md)"])
            throw APIError.smsUnavailable
        }
    }

    /// Counts the number towards its prefix; a halt this starts is audited (`sms-prefix-halted`) and logged.
    private func notePumping(_ number: String, in project: ProjectContext) async {
        do {
            guard let halt = try await services.smsPumping.noteSent(to: number, projectID: project.id) else { return }
            let until = ISO8601DateFormatter().string(from: halt.until)
            services.logger.warning("SMS to a number prefix halted: many distinct numbers asked for codes", metadata: [
                "prefix": "\(halt.prefix)", "numbers": "\(halt.numbers)", "until": "\(until)",
                "hint": "if the traffic is genuine, lift it under SMS halts in the console's Outbox view"])
            await services.audit.record(kind: SMSPumpingWatch.auditKind, projectID: project.id, localID: nil, outcome: .failure,
                                        details: ["prefix": halt.prefix, "numbers": String(halt.numbers), "until": until])
        } catch {
            services.logger.warning("SMS pumping counter not written", metadata: ["error": "\(error)"])
        }
    }
}
