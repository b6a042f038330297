import Foundation
import Synchronization
import TesseraSDK

/// Answers the capability calls a C-ABI plugin makes through `host->call`
/// (docs/capability-protocol.md's methods, by name, with JSON parameters).
///
/// In the host's process the providers' handlers answer them, against the plugin's context and
/// grants (TesseraRuntime); in the process tier the runner forwards them to the host unchanged
/// (``PeerCapabilityRouter``), where those same handlers answer.
public protocol CCapabilityRouter: Sendable {
    /// Answers `method` for `adapter`'s instance, started with `context`. Called on the plugin's
    /// thread (never Swift's concurrency pool), which waits for the answer.
    func answer(_ method: String, _ params: JSONValue, context: PluginContext, adapter: CPluginAdapter) throws -> JSONValue
}

/// The process tier's router: each call goes to the host as the frame a Swift plugin's proxy
/// would send, and the host answers it with the grants it holds for this plugin.
public struct PeerCapabilityRouter: CCapabilityRouter {
    let peer: PeerConnection

    public func answer(_ method: String, _ params: JSONValue, context: PluginContext, adapter: CPluginAdapter) throws -> JSONValue {
        try peer.callBlocking(method, params)
    }
}

/// Waits on this thread for `work`, run as a task: how a C plugin's blocking call is answered by
/// async code. Only for threads outside Swift's concurrency pool (a ``CPluginThread``).
public func waitForTask<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        let result: Result<T, any Error>
        do { result = .success(try await work()) } catch { result = .failure(error) }
        outcome.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    return try outcome.withLock { $0! }.get()
}
