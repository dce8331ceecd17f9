import Foundation
import HearthCore
import Logging
import Metrics
import ServiceLifecycle
import Synchronization

/// Purges what has expired, on a schedule, beside the HTTP server: refresh tokens revoked by their user, pending
/// sessions (createAuthUri, MFA, SMS), one-time assertion digests, rate-limit windows, outbox messages whose codes
/// have expired (delivered ones are deleted at delivery, so raw codes never outlive their use), and audit events
/// past their retention. Each pass also reports the outbox backlog to metrics.
///
/// Several instances share the work through leases in the store (``OperationsStore/takeLease(job:holder:until:now:)``):
/// of the instances on one database, one purges per interval and one runs the daily cleanup per day.
struct Housekeeper: Service, CustomStringConvertible {
    let store: any OperationsStore & OutboxStore
    let clock: any HearthClock
    let interval: Duration
    let auditRetention: Duration?
    let logger: Logger
    /// Deletes the inactive anonymous accounts of the projects and tenants that ask (`autodeleteAnonymousUsers`);
    /// run at most once a day across instances, as it reads every user. Returns how many it deleted.
    var anonymousCleanup: (@Sendable (Date) async throws -> Int)?
    /// This instance, as the holder of the jobs' leases.
    var holder = UUID().uuidString

    /// The store's names for the jobs' leases.
    enum Job {
        static let purge = "housekeeping.purge", anonymousCleanup = "housekeeping.anonymous-cleanup"
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
    /// pass, and cancels none of the others. Returns the purge's report, or nil when another instance holds this
    /// interval's purge (or it could not run).
    @discardableResult
    func pass() async -> HousekeepingReport? {
        let now = clock.now()
        let retention = auditRetention.map { TimeInterval($0.components.seconds) }
        var report: HousekeepingReport?
        // A lease a little shorter than the interval: the holder's next pass finds it run out, whatever the jitter.
        let period = TimeInterval(interval.components.seconds) * 0.9
        if await lease(Job.purge, until: now + period, now: now) {
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
                try? await store.releaseLease(job: Job.purge, holder: holder)
            }
        }
        if let anonymousCleanup, await lease(Job.anonymousCleanup, until: now + 86_400, now: now) {
            do {
                let deleted = try await anonymousCleanup(now)
                if deleted > 0 { logger.info("inactive anonymous accounts deleted (autodeleteAnonymousUsers)", metadata: ["count": "\(deleted)"]) }
            } catch {
                logger.warning("housekeeping: deleting inactive anonymous accounts failed; retrying at the next pass",
                               metadata: ["error": "\(error)"])
                try? await store.releaseLease(job: Job.anonymousCleanup, holder: holder)
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

    /// Whether this instance holds `job` until `until`; a store that cannot say is logged, and the job waits.
    private func lease(_ job: String, until: Date, now: Date) async -> Bool {
        do {
            return try await store.takeLease(job: job, holder: holder, until: until, now: now)
        } catch {
            logger.warning("housekeeping: could not take the job's lease; retrying at the next pass",
                           metadata: ["job": "\(job)", "error": "\(error)"])
            return false
        }
    }
}
