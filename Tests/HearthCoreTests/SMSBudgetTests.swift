import Foundation
import HearthCore
import Synchronization
import Testing

/// The SMS budget in the phone use case, where every code is made: under a burst exactly the budget goes out, a text
/// the gateway refused gives its slot back, and the reports reach the server's port.
@Suite struct SMSBudgetTests {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000.25))
    let store = InMemoryStore()

    final class Gateway: SMSSender, @unchecked Sendable {
        let sent = Mutex(0)
        let failing = Mutex(false)
        func send(_ message: SMSMessage) async throws {
            if failing.withLock({ $0 }) { throw SMSDeliveryFailure(reason: "gateway down") }
            sent.withLock { $0 += 1 }
        }
    }

    final class Reports: SMSBudgetEvents, @unchecked Sendable {
        let refusals = Mutex<[String]>([])
        func refused(_ limit: String, firstInWindow: Bool, in project: ProjectContext) async { refusals.withLock { $0.append(limit) } }
        func halted(_ halt: SMSPumpingWatch.Halt, in project: ProjectContext) async {}
        func releaseFailed(_ error: any Error) async {}
    }

    func accounts(perNumber: Int, reports: Reports) -> AccountContext {
        var accounts = AccountContext(store: store, clock: clock, hashing: InlineWorkRunner())
        let limiter = RateLimiter(store: store, clock: clock)
        accounts.smsBudget = SMSBudget(
            limiter: limiter, pumping: SMSPumpingWatch(store: store, limiter: limiter, clock: clock, rules: .init()),
            rules: .init(perNumber: .init(limit: perNumber, window: 3600), perAddress: .init(limit: 1000, window: 3600),
                         perPrefix: .init(limit: 1000, window: 3600)),
            events: reports)
        return accounts
    }

    func project() async throws -> ProjectContext {
        try await ProjectDirectory(store: store, clock: clock, defaults: { _ in ProjectSettings(enableImprovedEmailPrivacy: true) },
                                   hashParameters: { .generate(memoryCost: 10) }).contextCreatingIfNeeded(for: "sms-budget")
    }

    @Test func fiftyConcurrentCodesToOneNumberSendExactlyItsBudget() async throws {
        let reports = Reports()
        let accounts = accounts(perNumber: 5, reports: reports)
        let project = try await project()
        let gateway = Gateway()
        let outcomes = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    (try? await accounts.phone.sendPhoneCode(to: "+16505550100", purpose: .signIn, in: project, locale: nil,
                                                            sender: gateway)) != nil
                }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 5, "a budget of 5 lets exactly 5 through")
        #expect(gateway.sent.withLock { $0 } == 5)
        #expect(reports.refusals.withLock { $0 }.count == 45 && reports.refusals.withLock { $0 }.allSatisfy { $0 == "sms-number" })
    }

    @Test func aTextTheGatewayRefusedGivesItsSlotBack() async throws {
        let reports = Reports()
        let accounts = accounts(perNumber: 1, reports: reports)
        let project = try await project()
        let gateway = Gateway()
        gateway.failing.withLock { $0 = true }
        await #expect(throws: SMSDeliveryFailure.self) {
            try await accounts.phone.sendPhoneCode(to: "+16505550101", purpose: .signIn, in: project, locale: nil, sender: gateway)
        }
        gateway.failing.withLock { $0 = false }
        _ = try await accounts.phone.sendPhoneCode(to: "+16505550101", purpose: .signIn, in: project, locale: nil, sender: gateway)
        #expect(gateway.sent.withLock { $0 } == 1, "the failed attempt did not spend the only slot")
        await #expect(throws: AuthFailure.quotaExceeded) {
            try await accounts.phone.sendPhoneCode(to: "+16505550101", purpose: .signIn, in: project, locale: nil, sender: gateway)
        }
    }
}
