import Foundation
import HearthCore
import Logging
import Metrics
import ServiceLifecycle
import Synchronization

/// Purges what has expired, on a schedule, beside the HTTP server: refresh tokens revoked by their user, pending
/// sessions (createAuthUri, MFA, SMS), one-time assertion digests, rate-limit windows, outbox messages whose codes
/// have expired (delivered ones are deleted at delivery, so raw codes never outlive their use), and audit events
/// past their retention. Each pass also reports the outbox backlog to metrics. Several instances may run it at
/// once: each pass is one transaction of idempotent deletes.
struct Housekeeper: Service, CustomStringConvertible {
    let store: any IdentityStore
    let clock: any HearthClock
    let interval: Duration
    let auditRetention: Duration?
    let logger: Logger
    /// Deletes the inactive anonymous accounts of the projects and tenants that ask (`autodeleteAnonymousUsers`);
    /// run at most once a day, as it reads every user. Returns how many it deleted.
    var anonymousCleanup: (@Sendable (Date) async throws -> Int)?
    private let lastCleanup = LastRun()

    /// When the daily cleanup last ran (shared by copies of the housekeeper).
    final class LastRun: Sendable {
        private let date = Mutex<Date?>(nil)
        /// Whether a day has passed since the last run (or none ran); if so, `now` becomes the last run.
        func claim(_ now: Date) -> Bool {
            date.withLock { last in
                guard last.map({ now.timeIntervalSince($0) >= 86_400 }) ?? true else { return false }
                last = now
                return true
            }
        }
    }

    var description: String { "Housekeeper" }

    /// Outbox messages older than the longest action-code lifetime can only carry dead codes.
    static let outboxRetention = ActionCodeType.allCases.map(\.lifetime).max() ?? 3 * 86_400

    func run() async throws {
        // The first pass waits one interval: a start stays quick and light (a pass fills SQLite's page cache).
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled else { return }
                await pass()
            }
        }
    }

    /// One pass: purge, then report the backlog. Failures are logged and retried at the next pass.
    @discardableResult
    func pass() async -> HousekeepingReport? {
        let now = clock.now()
        let retention = auditRetention.map { TimeInterval($0.components.seconds) }
        do {
            let report = try await store.purge(Housekeeping(
                now: now, outboxCreatedBefore: now - Self.outboxRetention, auditBefore: retention.map { now - $0 }))
            if report.total > 0 {
                logger.info("housekeeping", metadata: [
                    "refreshTokens": "\(report.refreshTokens)", "pendingSecrets": "\(report.pendingSecrets)",
                    "assertions": "\(report.assertions)", "outboxMessages": "\(report.outboxMessages)",
                    "rateCounters": "\(report.rateCounters)", "auditEvents": "\(report.auditEvents)"])
            }
            if let anonymousCleanup, lastCleanup.claim(now) {
                let deleted = try await anonymousCleanup(now)
                if deleted > 0 { logger.info("inactive anonymous accounts deleted (autodeleteAnonymousUsers)", metadata: ["count": "\(deleted)"]) }
            }
            let backlog = try await store.outboxBacklog()
            Gauge(label: "hearth_outbox_pending").record(backlog.pending)
            Gauge(label: "hearth_outbox_given_up").record(backlog.givenUp)
            return report
        } catch {
            logger.warning("housekeeping pass failed; retrying at the next one", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
