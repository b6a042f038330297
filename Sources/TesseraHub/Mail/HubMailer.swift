import Foundation

/// Sends the hub's queued mail (``HubMailOutbox/queueMail(_:)``) through the deployment's SMTP server,
/// retrying a message the server did not take with growing pauses on the hub's clock: 30 s, 1
/// min, 2 min, … up to an hour between attempts, until it goes. A message the server refuses for
/// good (5xx) is marked failed and kept, with the server's answer, for the operator.
public final class HubMailer: Sendable {
    let store: HubStore
    let transport: any MailTransport
    let log: @Sendable (String) -> Void

    public init(store: HubStore, transport: any MailTransport, log: @escaping @Sendable (String) -> Void = { _ in }) {
        self.store = store
        self.transport = transport
        self.log = log
    }

    /// The pause before attempt `attempts + 1`, after `attempts` failed ones.
    public static func retryDelayMillis(afterAttempts attempts: Int) -> Int64 {
        min(30_000 << Int64(min(max(attempts - 1, 0), 20)), 3_600_000)
    }

    /// Sends every message due now on the hub's clock; how many went and how many failed.
    @discardableResult
    public func deliverDue() async -> (sent: Int, failed: Int) {
        var sent = 0, failed = 0
        while true {
            let batch: [(id: String, mail: OutgoingMail, attempts: Int)]
            do { batch = try await store.mail.claimDueMail(limit: 20) } catch {
                log("the mail outbox could not be read (\(error)); nothing is sent until it can be")
                return (sent, failed)
            }
            guard !batch.isEmpty else { return (sent, failed) }
            for (id, mail, attempts) in batch {
                do {
                    try await transport.send(mail, messageID: id, date: store.now())
                    do { try await store.mail.markMailSent(id) } catch {
                        // It went; kept as unsent, it would go again once its lease ends.
                        log("mail \(id) to \(mail.to) was sent, but could not be marked sent (\(error)): it may be sent again")
                    }
                    sent += 1
                } catch {
                    let mailError = error as? MailError ?? MailError(permanent: false, message: "\(error)")
                    let delay = Self.retryDelayMillis(afterAttempts: attempts + 1)
                    // The recipient and the server's answer, never the body (it may hold a code).
                    log("mail \(id) to \(mail.to) not sent (attempt \(attempts + 1)): \(mailError.message)"
                        + (mailError.permanent ? "; not retried" : "; again in \(delay / 1000) s"))
                    do { try await store.mail.markMailFailed(id, error: mailError, retryInMillis: delay) } catch {
                        log("mail \(id): the failed attempt could not be recorded (\(error)); it is tried again when its lease ends")
                    }
                    failed += 1
                }
            }
        }
    }

    /// Delivers until cancelled: what is due, then waits for new mail or the next retry (at
    /// most a minute, so a replica also sends what another queued).
    public func run() async {
        while !Task.isCancelled {
            let generation = store.mail.mailSignal.generation
            await deliverDue()
            // Unreadable, the next retry is unknown: the wait's minute bounds it instead, and the
            // next round's failure is logged by `deliverDue`.
            let next = (try? await store.mail.nextMailDue()) ?? nil
            let nowMillis = Int64(store.now().timeIntervalSince1970 * 1000)
            let wait = max(0, min((next ?? Int64.max) - nowMillis, 60_000))
            await store.mail.mailSignal.wait(after: generation, atMost: .milliseconds(max(wait, 200)))
        }
    }
}
