import TesseraIsolation
@_spi(TesseraHost) import TesseraSDK

/// The process tier's per-message work alone, in the host's process (`tessera-bench isolation`):
/// the echo's operation call as the host sends it and the child reads it, the child's typed
/// handler decoding its input and encoding its answer (the example plugin's `echo`, mirrored
/// here), and the answer sent back and read — every step but the socket. Three ways, in turns:
///
/// - `whole trees`: each message one `JSONValue` — the envelope a dictionary around the payload,
///   parsed whole (the protocol until issue 48), the input decoded from its tree;
/// - `envelope as bytes`: the envelope written and read as bytes (``PeerMessage``), the params
///   parsed into a tree and the input decoded from it (the protocol from issue 48's second pass);
/// - `input as text`: the host sends the input's text as the caller sent it
///   (``OperationFrame``), and the handler decodes it straight from those bytes (the SDK's tape),
///   with no tree on either side.
func messageWorkBenchmark(rounds: Int) async throws -> (tree: Summary, bytes: Summary, text: Summary) {
    let inputText = Array(echoInputJSON.utf8)
    let input = try JSONValue(parsing: inputText)
    let principal = Principal(id: "bench", role: .user)
    let context = PluginContext(pluginID: "bench", config: .object([:]), capabilities: [], log: PluginLog { _, _ in })
    context.onOperation("echo", input: EchoInput.self) { echo, _ in EchoAnswer(ok: true, count: echo.tags.count) }
    guard let handler = context.hostHandlers.operation("echo") else { throw BenchError("no echo handler") }
    let host = OperationCall(operation: "echo", input: input, principal: principal)
    let hostWithText = OperationCall(operation: "echo", input: input, inputText: inputText, principal: principal)

    func answered(_ result: JSONValue) throws {
        guard result["count"]?.integerValue == 3 else { throw BenchError("the echo's answer changed: \(result)") }
    }
    var tree: [Double] = [], bytes: [Double] = [], text: [Double] = []
    let block = 1_000
    for _ in 0..<max(1, rounds / block) {
        tree += try await timedBlock(block) {
            var frame: [UInt8] = []
            PeerMessage.call(id: 41, method: ChildMethod.operation, params: host.wire).json.appendSerialized(to: &frame)
            let call = try OperationCall(wire: JSONValue(parsing: frame)["params"] ?? .null)
            var answer: [UInt8] = []
            PeerMessage.reply(id: 41, result: try await handler(call)).json.appendSerialized(to: &answer)
            try answered(JSONValue(parsing: answer)["result"] ?? .null)
        }
        bytes += try await timedBlock(block) {
            // Another method's name: a call named `operation` is read as an ``OperationFrame`` now.
            var frame: [UInt8] = []
            PeerMessage.call(id: 41, method: "echo", params: host.wire).appendSerialized(to: &frame)
            guard case .call(_, _, let params) = try PeerMessage(frame: frame[...]) else { throw BenchError("bytes: not a call") }
            var answer: [UInt8] = []
            PeerMessage.reply(id: 41, result: try await handler(try OperationCall(wire: params))).appendSerialized(to: &answer)
            guard case .answer(_, let result) = try PeerMessage(frame: answer[...]) else { throw BenchError("bytes: not an answer") }
            try answered(result.value())
        }
        text += try await timedBlock(block) {
            var frame: [UInt8] = []
            PeerMessage.operation(id: 41, OperationFrame(hostWithText)).appendSerialized(to: &frame)
            guard case .operation(_, let operation) = try PeerMessage(frame: frame[...]) else { throw BenchError("text: not an operation") }
            var answer: [UInt8] = []
            PeerMessage.reply(id: 41, result: try await handler(operation.call)).appendSerialized(to: &answer)
            guard case .answer(_, let result) = try PeerMessage(frame: answer[...]) else { throw BenchError("text: not an answer") }
            try answered(result.value())
        }
    }
    return (Summary(tree), Summary(bytes), Summary(text))
}

/// The example plugin's `echo` input and answer (Plugins/Example), decoded and encoded as it does.
private struct EchoInput: Decodable, Sendable {
    let id: String, title: String, amount: Int, date: String, tags: [String], note: String?
}
private struct EchoAnswer: Encodable, Sendable { let ok: Bool, count: Int }

/// The nanoseconds each of `count` runs of `work` took.
private func timedBlock(_ count: Int, _ work: () async throws -> Void) async throws -> [Double] {
    var samples: [Double] = []
    samples.reserveCapacity(count)
    for _ in 0..<count {
        let start = monotonicNanoseconds()
        try await work()
        samples.append(Double(monotonicNanoseconds() - start))
    }
    return samples
}
