import Foundation
import Synchronization
import TesseraIsolation
import TesseraLoader
@_spi(TesseraHost) import TesseraSDK

/// How the host answers a C-ABI plugin in its own process: each `host->call` through the same
/// providers' handlers that answer a process-tier child (``ChildCallTable``), against the
/// plugin's context and grants.
struct CPluginCalls: CCapabilityRouter {
    let calls: ChildCallTable
    let session: CPluginSession

    /// The factory of `table`'s instances, each with calls answered by `calls`.
    static func factory(_ table: CPluginTable, calls: ChildCallTable, maxOpenFileWriters: Int) -> PluginFactory {
        PluginFactory {
            let session = CPluginSession(fileWriters: FileWriterHandles(limit: maxOpenFileWriters))
            let adapter = CPluginAdapter(table: table, router: CPluginCalls(calls: calls, session: session))
            session.attach(adapter)
            return adapter
        }
    }

    func answer(_ method: String, _ params: JSONValue, context: PluginContext, adapter: CPluginAdapter) throws -> JSONValue {
        let (calls, session) = (self.calls, self.session)
        // The plugin's thread waits here; the handler runs on Swift's pool.
        return try waitForTask { try await calls.answer(method, params, context: context, session: session) }
    }
}

/// What an in-process C-ABI plugin holds between its calls: its open file writers, and the
/// adapter its timers are routed to.
final class CPluginSession: CapabilityCallSession {
    let fileWriters: FileWriterHandles
    /// Weak: the adapter holds its router, which holds this session.
    private let adapter = Mutex(WeakAdapter())
    private struct WeakAdapter { weak var value: CPluginAdapter? }

    init(fileWriters: FileWriterHandles) { self.fileWriters = fileWriters }

    func attach(_ adapter: CPluginAdapter) { self.adapter.withLock { $0.value = adapter } }

    func routeTimer(_ name: String, on context: PluginContext) {
        adapter.withLock { $0.value }?.routeTimer(name, on: context)
    }
}
