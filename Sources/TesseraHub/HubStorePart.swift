import Foundation

/// What the hub's store and each of its parts (``HubMailOutbox``, ``HubChannelStore``) work on:
/// the one ``HubDatabase`` and the hub's clock. Every operation runs in one transaction.
protocol HubStorePart: Sendable {
    var database: any HubDatabase { get }
    /// The hub's clock (the host's clock capability; a settable one in tests).
    var now: @Sendable () -> Date { get }
}

extension HubStorePart {
    var nowMillis: Int64 { Int64((now().timeIntervalSince1970 * 1000).rounded(.down)) }

    /// Runs `body` in one transaction; a store failure becomes ``HubError/store(_:)``, a
    /// ``HubError`` passes through (after the rollback).
    @discardableResult
    func transaction<T: Sendable>(_ body: (any HubSQL) async throws -> T) async throws(HubError) -> T {
        do {
            return try await database.transaction(body)
        } catch let error as HubError {
            throw error
        } catch {
            throw HubError.store(error)
        }
    }
}
