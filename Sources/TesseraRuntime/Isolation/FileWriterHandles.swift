import Foundation
import Synchronization
import TesseraIsolation
@_spi(TesseraHost) import TesseraSDK

/// The file writers a plugin outside Swift's reach holds open in the host, by handle: a
/// process-tier child's, or a C-ABI plugin's (their handlers are the files provider's,
/// `Capabilities/FilesCapability.swift`). A writer is held until it finishes or cancels, at most
/// `limit` at once; a plugin that ends leaves none open (``cancelAll()``).
final class FileWriterHandles: Sendable {
    private let limit: Int
    private let state = Mutex(State())

    private struct State {
        var writers: [Int64: any PluginFileWriter] = [:]
        var last: Int64 = 0
        /// Writers being opened (counted against the limit before the provider answers).
        var opening = 0
    }

    init(limit: Int) { self.limit = limit }

    /// How many are open.
    var count: Int { state.withLock { $0.writers.count } }

    /// Opens a writer and holds it under a new handle (`files.writer.open`).
    func open(_ params: JSONValue, on context: PluginContext, pluginID: String) async throws -> JSONValue {
        let reserved = state.withLock { s -> Bool in
            guard s.writers.count + s.opening < limit else { return false }
            s.opening += 1
            return true
        }
        guard reserved else {
            throw PluginError(.unavailable, "plugin '\(pluginID)' holds \(limit) open file writers, the most the host keeps for it; finish or cancel one first")
        }
        let writer: any PluginFileWriter
        do {
            writer = try await context.capability(.files).writer(mediaType: params["mediaType"]?.stringValue)
        } catch {
            state.withLock { $0.opening -= 1 }
            throw error
        }
        let handle = state.withLock { s -> Int64 in
            s.opening -= 1
            s.last += 1
            s.writers[s.last] = writer
            return s.last
        }
        return ["writer": .integer(handle)]
    }

    /// Finishes the writer the call names and lets its handle go.
    func finish(_ params: JSONValue) async throws -> JSONValue {
        let writer = try named(params)
        defer { close(params) }
        return try await writer.finish().wire
    }

    /// Cancels the writer the call names. Cancelling a writer that finished or was cancelled
    /// already is no error: nothing is held.
    func cancel(_ params: JSONValue) async {
        let writer = try? named(params)
        close(params)
        await writer?.cancel()
    }

    /// The open writer the call names (`writer`), refused if there is none.
    func named(_ params: JSONValue) throws -> any PluginFileWriter {
        let handle = params["writer"]?.integerValue ?? 0
        guard let writer = state.withLock({ $0.writers[handle] }) else {
            throw PluginError(.invalidInput, "no open file writer \(handle) (it finished, was cancelled, or never opened)", field: "writer")
        }
        return writer
    }

    private func close(_ params: JSONValue) {
        _ = state.withLock { $0.writers.removeValue(forKey: params["writer"]?.integerValue ?? 0) }
    }

    /// Cancels the writers left open (the plugin crashed, or was stopped mid-write): their
    /// partial bytes are dropped, as when an in-process plugin's write throws.
    func cancelAll() {
        let writers = state.withLock { s -> [any PluginFileWriter] in
            defer { s.writers = [:] }
            return Array(s.writers.values)
        }
        guard !writers.isEmpty else { return }
        Task { for writer in writers { await writer.cancel() } }
    }
}
