import Foundation
import TesseraIsolation
@_spi(TesseraHost) import TesseraSDK

/// The host's side of the child's file calls, answered by the files capability the provider built
/// for this plugin (its quota, media types and links checked there). A writer the child opens is
/// held here under a handle until it finishes or cancels, at most ``IsolationPolicy/maxOpenFileWriters``
/// at once; a child that dies leaves none open (``cancelOpenWriters()``).
extension ProcessPlugin {
    func answerFiles(_ method: String, _ params: JSONValue, on context: PluginContext) async throws -> JSONValue? {
        switch method {
        case CapabilityMethod.filesWriterOpen:
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
        case CapabilityMethod.filesWriterWrite:
            try await openWriter(params).write(try BytesWire.decode(params["bytes"]))
            return .null
        case CapabilityMethod.filesWriterFinish:
            let writer = try openWriter(params)
            defer { closeWriter(params) }
            return try await writer.finish().wire
        case CapabilityMethod.filesWriterCancel:
            // Cancelling a writer that finished or was cancelled already is no error: nothing is held.
            let writer = try? openWriter(params)
            closeWriter(params)
            await writer?.cancel()
            return .null
        case CapabilityMethod.filesStat:
            return try await context.capability(.files).stat(params.stringValue ?? "").wire
        case CapabilityMethod.filesRead:
            let bytes = try await context.capability(.files).read(try params.wireField("address"), range: try RangeWire.decode(params["range"]))
            return BytesWire.encode(bytes)
        case CapabilityMethod.filesLink:
            try await context.capability(.files).link(try params.wireField("address"), table: try params.wireField("table"), id: try params.wireField("id"))
            return .null
        case CapabilityMethod.filesUnlink:
            try await context.capability(.files).unlink(try params.wireField("address"), table: try params.wireField("table"), id: try params.wireField("id"))
            return .null
        case CapabilityMethod.filesLinks:
            return .array(try await context.capability(.files).links(of: params.stringValue ?? "").map(\.wire))
        default:
            return nil
        }
    }

    private func openWriter(_ params: JSONValue) throws -> any PluginFileWriter {
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

extension JSONValue {
    /// A string parameter of a capability call; a missing one is refused naming it.
    func wireField(_ key: String) throws -> String {
        guard let s = self[key]?.stringValue else { throw PluginError(.invalidInput, "the call has no '\(key)'", field: key) }
        return s
    }
}
