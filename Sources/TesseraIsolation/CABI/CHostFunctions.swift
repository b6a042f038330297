import Foundation
import TesseraLoader
import TesseraSDK

/// The host's function table for C-ABI plugins (`tessera_host_api_t`): one for every plugin, made
/// once and never freed. Each function finds its instance's ``CPluginAdapter`` through the
/// `host_context` the adapter handed to `create`.
enum CHostFunctions {
    /// Written once, here, before any plugin sees it; read-only after.
    nonisolated(unsafe) static let table: UnsafePointer<tessera_host_api_t> = {
        let table = UnsafeMutablePointer<tessera_host_api_t>.allocate(capacity: 1)
        table.initialize(to: tessera_host_api_t())
        table.pointee.size = UInt32(MemoryLayout<tessera_host_api_t>.size)
        table.pointee.c_abi_major = TESSERA_C_ABI_MAJOR
        table.pointee.c_abi_minor = TESSERA_C_ABI_MINOR
        table.pointee.protocol_version = UInt32(CapabilityProtocol.version)
        table.pointee.host_version = UnsafePointer(strdup(tesseraVersion))
        table.pointee.call = hostCall
        table.pointee.free_buffer = freeBuffer
        table.pointee.log = hostLog
        return UnsafePointer(table)
    }()

    /// Fills `buffer` with `bytes`, allocated here: the plugin gives it back with ``freeBuffer``.
    static func fill(_ buffer: UnsafeMutablePointer<tessera_buffer_t>, with text: String) {
        var bytes = Array(text.utf8)
        let data = malloc(max(bytes.count, 1))!.assumingMemoryBound(to: UInt8.self)
        bytes.withUnsafeMutableBufferPointer { data.update(from: $0.baseAddress!, count: $0.count) }
        buffer.pointee = tessera_buffer_t(data: data, length: bytes.count)
    }

    /// An error as the plugin reads it: `{"code", "message", "field"?, "reason"?}`.
    static func errorJSON(_ error: any Error) -> JSONValue {
        guard let error = error as? PluginError else { return ["code": "internal", "message": .string("\(error)")] }
        var o: [String: JSONValue] = ["code": .string(error.code.rawValue), "message": .string(error.message)]
        if let field = error.field { o["field"] = .string(field) }
        if let reason = error.reason { o["reason"] = .string(reason.rawValue) }
        return .object(o)
    }
}

/// `call`: a capability method, answered by the adapter's router.
private let hostCall: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, UnsafePointer<UInt8>?, Int,
                                      UnsafeMutablePointer<tessera_buffer_t>?) -> Int32 = { context, method, params, length, result in
    guard let result else { return Int32(TESSERA_ERROR) }
    result.pointee = tessera_buffer_t(data: nil, length: 0)
    guard let context, let method else {
        CHostFunctions.fill(result, with: CHostFunctions.errorJSON(PluginError(.invalidInput, "a call needs its instance's host_context and a method name")).serialized())
        return Int32(TESSERA_ERROR)
    }
    let adapter = Unmanaged<CPluginAdapter>.fromOpaque(context).takeUnretainedValue()
    do {
        let bytes = params.map { UnsafeBufferPointer(start: $0, count: length) } ?? UnsafeBufferPointer(start: nil, count: 0)
        let parameters: JSONValue
        do { parameters = bytes.isEmpty ? .null : try JSONValue(parsing: bytes) } catch {
            throw PluginError(.invalidInput, "the parameters of '\(String(cString: method))' are not JSON: \(error)")
        }
        let answer = try adapter.answerCapabilityCall(String(cString: method), parameters)
        CHostFunctions.fill(result, with: answer.serialized())
        return Int32(TESSERA_OK)
    } catch {
        CHostFunctions.fill(result, with: CHostFunctions.errorJSON(error).serialized())
        return Int32(TESSERA_ERROR)
    }
}

/// `free_buffer`: gives back what ``CHostFunctions/fill(_:with:)`` allocated.
private let freeBuffer: @convention(c) (UnsafeMutablePointer<tessera_buffer_t>?) -> Void = { buffer in
    guard let buffer else { return }
    free(buffer.pointee.data)
    buffer.pointee = tessera_buffer_t(data: nil, length: 0)
}

/// `log`: a line under the plugin's id.
private let hostLog: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafePointer<UInt8>?, Int) -> Void = { context, level, message, length in
    guard let context, let message else { return }
    let adapter = Unmanaged<CPluginAdapter>.fromOpaque(context).takeUnretainedValue()
    let text = String(decoding: UnsafeBufferPointer(start: message, count: length), as: UTF8.self)
    let levels: [PluginLog.Level] = [.debug, .info, .warning, .error]
    adapter.log(levels[Int(min(max(level, 0), 3))], text)
}
