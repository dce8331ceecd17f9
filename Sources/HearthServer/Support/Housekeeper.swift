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
/// once: each purge is an idempotent delete in a transaction of its own.
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
        /// A run that failed: the next pass tries again.
        func forget() { date.withLock { $0 = nil } }
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

    /// One pass: purge, the daily cleanup, then the backlog report. Each step, and each purge within the first,
    /// is a transaction of its own: one that fails is logged with the database's message and retried at the next
    /// pass, and cancels none of the others.
    @discardableResult
    func pass() async -> HousekeepingReport? {
        let now = clock.now()
        let retention = auditRetention.map { TimeInterval($0.components.seconds) }
        var report: HousekeepingReport?
        do {
            let purged = try await store.purge(Housekeeping(
                now: now, outboxCreatedBefore: now - Self.outboxRetention, auditBefore: retention.map { now - $0 }))
            if purged.total > 0 {
                logger.info("housekeeping", metadata: [
                    "refreshTokens": "\(purged.refreshTokens)", "pendingSecrets": "\(purged.pendingSecrets)",
                    "assertions": "\(purged.assertions)", "outboxMessages": "\(purged.outboxMessages)",
                    "rateCounters": "\(purged.rateCounters)", "auditEvents": "\(purged.auditEvents)"])
            }
            for (what, message) in purged.failures.sorted(by: { $0.key < $1.key }) {
                logger.warning("housekeeping: a purge failed; the others ran, and it is retried at the next pass",
                               metadata: ["purge": "\(what)", "error": "\(message)"])
            }
            report = purged
        } catch {
            logger.warning("housekeeping: the purges could not run; retrying at the next pass", metadata: ["error": "\(error)"])
        }
        if let anonymousCleanup, lastCleanup.claim(now) {
            do {
                let deleted = try await anonymousCleanup(now)
                if deleted > 0 { logger.info("inactive anonymous accounts deleted (autodeleteAnonymousUsers)", metadata: ["count": "\(deleted)"]) }
            } catch {
                logger.warning("housekeeping: deleting inactive anonymous accounts failed; retrying at the next pass",
                               metadata: ["error": "\(error)"])
                lastCleanup.forget()
            }
        }
        do {
            let backlog = try await store.outboxBacklog()
            Gauge(label: "hearth_outbox_pending").record(backlog.pending)
            Gauge(label: "hearth_outbox_given_up").record(backlog.givenUp)
        } catch {
            logger.warning("housekeeping: the outbox backlog could not be read", metadata: ["error": "\(error)"])
        }
        return report
    }
}
