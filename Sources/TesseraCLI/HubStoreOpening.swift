import Foundation
import TesseraHub
import TesseraHubPostgres
import TesseraManifest

extension Deployment {
    /// Opens the store a hub deployment names (`providers.hubStore`): `<data>/hub.sqlite`, or its
    /// PostgreSQL database, creating or upgrading the tables. The PostgreSQL password comes from
    /// the environment variable the deployment names, and is never printed.
    func openHubStore(dataDirectory: String, now: @escaping @Sendable () -> Date) async throws -> HubStore {
        switch hubStore {
        case .sqlite:
            do { return try await HubStore(dataDirectory: dataDirectory, now: now) } catch {
                throw CLIError(code: .failure, message: "cannot open the hub's store in \(dataDirectory): \(error)")
            }
        case .postgresql(let settings):
            let password = ProcessInfo.processInfo.environment[settings.passwordEnv]
            let database = PostgresHubDatabase(host: settings.host, port: settings.port, user: settings.user, password: password,
                                               database: settings.database, tls: PostgresHubDatabase.TLSMode(rawValue: settings.tls) ?? .prefer)
            do { return try await HubStore(database: database, now: now) } catch {
                database.shutdown()
                throw CLIError(code: .failure, message: """
                    cannot open the hub's PostgreSQL store (database \(settings.database) on \(settings.host):\(settings.port) as \(settings.user), \
                    password from $\(settings.passwordEnv)\(password == nil ? ", which is not set" : "")): \(error)
                    """)
            }
        }
    }
}
