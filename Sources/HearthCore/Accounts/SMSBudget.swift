import Foundation

/// What the SMS budget tells the server: the port through which a refusal or a halt reaches metrics, the audit log
/// and the operator's log (core knows none of them).
public protocol SMSBudgetEvents: Sendable {
    /// A code refused by `limit` (`sms-number`, `sms-address`, `sms-prefix`, or `sms-prefix-halt` for a halted prefix);
    /// `firstInWindow` once per key and window, so a flood of refusals cannot flood the audit log.
    func refused(_ limit: String, firstInWindow: Bool, in project: ProjectContext) async
    /// A halt this request started.
    func halted(_ halt: SMSPumpingWatch.Halt, in project: ProjectContext) async
    /// A slot could not be given back (the store failed): the budget keeps it until its window ends.
    func releaseFailed(_ error: any Error) async
}

/// Verification SMS budgets, per number, per client address and per number prefix (`QUOTA_EXCEEDED` beyond them),
/// and the pumping watch: a prefix that many distinct numbers ask for in a short window is halted until the halt
/// ends or an operator lifts it. Every code passes here before it is made and sent (``PhoneSignIn/sendPhoneCode``),
/// whichever route asked; each slot is reserved first and given back when no text goes out. A project's test numbers
/// send nothing, so they count towards no prefix.
public struct SMSBudget: Sendable {
    public struct Rules: Sendable, Equatable {
        public var perNumber: RateLimiter.Rule
        public var perAddress: RateLimiter.Rule
        public var perPrefix: RateLimiter.Rule

        public init(perNumber: RateLimiter.Rule, perAddress: RateLimiter.Rule, perPrefix: RateLimiter.Rule) {
            self.perNumber = perNumber
            self.perAddress = perAddress
            self.perPrefix = perPrefix
        }
    }

    let limiter: RateLimiter
    let pumping: SMSPumpingWatch
    let rules: Rules
    let events: any SMSBudgetEvents

    public init(limiter: RateLimiter, pumping: SMSPumpingWatch, rules: Rules, events: any SMSBudgetEvents) {
        self.limiter = limiter
        self.pumping = pumping
        self.rules = rules
        self.events = events
    }

    /// Runs `send` holding a slot of every budget `number` counts under (the client's address from
    /// ``CallerInfo/addressKey``), or throws `QUOTA_EXCEEDED`. When `send` throws, the slots are given back.
    func spending<T>(on number: String, in project: ProjectContext, _ send: () async throws -> T) async throws -> T {
        let watched = project.settings.testPhoneNumbers?[number] == nil
        let prefix = "sms-prefix:\(project.id)/" + SMSPumpingWatch.prefix(of: number)
        let address = CallerInfo.current.addressKey ?? CallerInfo.current.ipAddress ?? ""
        let keys = [("sms-number:" + number, rules.perNumber), ("sms-address:" + address, rules.perAddress)]
            + (watched ? [(prefix, rules.perPrefix)] : [])
        if watched, try await pumping.halt(covering: number, projectID: project.id) != nil {
            await events.refused("sms-prefix-halt", firstInWindow: false, in: project)
            throw AuthFailure.quotaExceeded
        }
        var held: RateLimiter.Reservation
        do {
            held = try await limiter.reserve(keys)
        } catch let refusal as RateLimiter.Refusal {
            let limit = String(refusal.key.prefix { $0 != ":" })
            await events.refused(limit, firstInWindow: limiter.isFirstRefusal(refusal.key, refusal.rule), in: project)
            throw AuthFailure.quotaExceeded
        }
        // The number's place among its prefix's distinct numbers is taken too before the text goes out.
        if watched {
            do {
                held = held.merged(with: try await pumping.admit(number, projectID: project.id))
            } catch let halted as SMSPumpingWatch.Halted {
                await release(held)
                await events.refused("sms-prefix-halt", firstInWindow: false, in: project)
                if let halt = halted.started { await events.halted(halt, in: project) }
                throw AuthFailure.quotaExceeded
            }
        }
        do {
            return try await send()
        } catch {
            await release(held)
            throw error
        }
    }

    private func release(_ held: RateLimiter.Reservation) async {
        do { try await limiter.release(held) } catch { await events.releaseFailed(error) }
    }
}
