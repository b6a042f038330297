import Foundation
import TesseraHub
import TesseraHubPostgres
import TesseraManifest
import TesseraRuntime

extension Deployment {
    /// Opens the store a hub deployment names (`providers.hubStore`): `<data>/hub.sqlite`, or its
    /// PostgreSQL database, creating or upgrading the tables. The PostgreSQL password comes from
    /// the environment variable the deployment names, and is never printed.
    func openHubStore(dataDirectory: String, now: @escaping @Sendable () -> Date,
                      sleepUntil: @escaping @Sendable (Date) async -> Void = HubStore.systemSleep) async throws -> HubStore {
        switch hubStore {
        case .sqlite:
            do { return try await HubStore(dataDirectory: dataDirectory, now: now, sleepUntil: sleepUntil) } catch {
                throw CLIError(code: .failure, message: "cannot open the hub's store in \(dataDirectory): \(error)")
            }
        case .postgresql(let settings):
            let password = ProcessInfo.processInfo.environment[settings.passwordEnv]
            let database = PostgresHubDatabase(host: settings.host, port: settings.port, user: settings.user, password: password,
                                               database: settings.database, tls: PostgresHubDatabase.TLSMode(rawValue: settings.tls) ?? .prefer)
            do {
                return try await Self.withinSeconds(Self.postgresStartSeconds) {
                    try await database.checkConnection()
                    return try await HubStore(database: database, now: now, sleepUntil: sleepUntil)
                }
            } catch {
                database.shutdown()
                let reason = error is StartTimeout ? "no answer within \(Self.postgresStartSeconds) s (is the server running, and reachable?)" : "\(error)"
                throw CLIError(code: .failure, message: """
                    cannot open the hub's PostgreSQL store (database \(settings.database) on \(settings.host):\(settings.port) as \(settings.user), \
                    password from $\(settings.passwordEnv)\(password == nil ? ", which is not set" : "")): \(reason)
                    """)
            }
        }
    }

    /// The mailer of a hub deployment that names an SMTP server (`providers.mail`); the user and
    /// password come from the environment variables it names, and are never printed.
    func hubMailer(for store: HubStore, log: HostLog) -> HubMailer? {
        guard let mail else { return nil }
        let environment = ProcessInfo.processInfo.environment
        let transport = SMTPTransport(host: mail.host, port: mail.port, from: mail.from,
                                      username: mail.usernameEnv.flatMap { environment[$0] }, password: mail.passwordEnv.flatMap { environment[$0] })
        return HubMailer(store: store, transport: transport, log: { log(.warning, "hub-mail", $0) })
    }

    /// The files that pass through the hub: their bytes under `providers.hubFiles.directory`
    /// (`<data>/hub-files` by default), their metadata in `store`, with the operator's limits.
    func openHubFiles(store: HubStore, dataDirectory: String) -> HubFiles {
        let directory = hubFiles.directory ?? (dataDirectory as NSString).appendingPathComponent("hub-files")
        return HubFiles(store: store, blobs: HubBlobStore(directory: directory),
                        policy: HubFilePolicy(quotaBytesPerPerson: hubFiles.quotaBytesPerPerson, maxFileBytes: hubFiles.maxFileBytes))
    }

    /// How long a hub waits for its PostgreSQL store at start before it gives up and says so (the
    /// pool itself retries for about a minute before it reports a refused connection).
    static let postgresStartSeconds = 20

    private struct StartTimeout: Error {}

    private static func withinSeconds<T: Sendable>(_ seconds: Int, _ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask { try await work() }
            group.addTask {
                try await Task.sleep(for: .seconds(seconds))
                throw StartTimeout()
            }
            defer { group.cancelAll() }
            return try await group.next()!
        }
    }
}
