import Foundation
import TesseraIsolation
@_spi(TesseraHost) import TesseraSDK

/// What the process tier holds for the child's file calls (their handlers are the files provider's,
/// `Capabilities/FilesCapability.swift`). A writer the child opens is
/// held here under a handle until it finishes or cancels, at most ``IsolationPolicy/maxOpenFileWriters``
/// at once; a child that dies leaves none open (``cancelOpenWriters()``).
extension ProcessPlugin {
    /// Opens a writer for the child and holds it under a new handle (`files.writer.open`).
    func openFileWriter(_ params: JSONValue, on context: PluginContext) async throws -> JSONValue {
        let limit = policy.maxOpenFileWriters
        let reserved = state.withLock { s -> Bool in
            guard s.writers.count + s.openingWriters < limit else { return false }
            s.openingWriters += 1
            return true
        }
        guard reserved else {
            throw PluginError(.unavailable, "plugin '\(manifest.id)' holds \(limit) open file writers, the most the host keeps for a process-tier plugin; finish or cancel one first")
        }
        let writer: any PluginFileWriter
        do {
            writer = try await context.capability(.files).writer(mediaType: params["mediaType"]?.stringValue)
        } catch {
            state.withLock { $0.openingWriters -= 1 }
            throw error
        }
        let handle = state.withLock { s -> Int64 in
            s.openingWriters -= 1
            s.lastWriter += 1
            s.writers[s.lastWriter] = writer
            return s.lastWriter
        }
        return ["writer": .integer(handle)]
    }

    /// Finishes the writer the call names and lets its handle go.
    func finishFileWriter(_ params: JSONValue) async throws -> JSONValue {
        let writer = try openWriter(params)
        defer { closeWriter(params) }
        return try await writer.finish().wire
    }

    /// Cancels the writer the call names. Cancelling a writer that finished or was cancelled
    /// already is no error: nothing is held.
    func cancelFileWriter(_ params: JSONValue) async {
        let writer = try? openWriter(params)
        closeWriter(params)
        await writer?.cancel()
    }

    /// The open writer the call names (`writer`), refused if there is none.
    func openWriter(_ params: JSONValue) throws -> any PluginFileWriter {
        let handle = params["writer"]?.integerValue ?? 0
        guard let writer = state.withLock({ $0.writers[handle] }) else {
            throw PluginError(.invalidInput, "no open file writer \(handle) (it finished, was cancelled, or never opened)", field: "writer")
        }
        return writer
    }

    private func closeWriter(_ params: JSONValue) {
        _ = state.withLock { $0.writers.removeValue(forKey: params["writer"]?.integerValue ?? 0) }
    }

    /// Cancels the writers a child left open (it crashed, or was stopped mid-write): their
    /// partial bytes are dropped, as when an in-process plugin's write throws.
    func cancelOpenWriters() {
        let writers = state.withLock { s -> [any PluginFileWriter] in
            defer { s.writers = [:] }
            return Array(s.writers.values)
        }
        guard !writers.isEmpty else { return }
        Task { for writer in writers { await writer.cancel() } }
    }
}
