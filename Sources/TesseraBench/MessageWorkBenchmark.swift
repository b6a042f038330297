import TesseraIsolation
@_spi(TesseraHost) import TesseraSDK

/// The process tier's per-message work alone, in the host's process (`tessera-bench isolation`):
/// the echo's operation call as the host sends it and the child reads it, and the answer the child
/// sends back, each written into a frame's bytes and read from them again. Two ways in turns:
///
/// - `tree`: the whole message as one `JSONValue` — the envelope a dictionary around the payload,
///   parsed whole (the protocol's reading and writing until issue 48);
/// - `envelope as bytes`: as ``PeerMessage`` does it now — the envelope written and read as bytes,
///   only the payload parsed.
///
/// Both parse the payload into a tree: the SDK hands a handler its input as a `JSONValue`.
func messageWorkBenchmark(rounds: Int) throws -> (tree: Summary, bytes: Summary) {
    let input = try JSONValue(parsing: echoInputJSON)
    let params: JSONValue = ["operation": "echo", "input": input, "principal": ["id": "bench", "role": "user"]]
    let messages: [PeerMessage] = [.call(id: 41, method: "operation", params: params), .reply(id: 41, result: input)]
    var tree: [Double] = [], bytes: [Double] = []
    let block = 1_000
    for _ in 0..<max(1, rounds / block) {
        tree += try timedBlock(block) {
            for message in messages {
                var frame: [UInt8] = []
                frame.reserveCapacity(512)
                message.json.appendSerialized(to: &frame)
                let read = try JSONValue(parsing: frame)
                guard read["call"]?.integerValue ?? read["reply"]?.integerValue == 41 else { throw BenchError("tree: the number was lost") }
            }
        }
        bytes += try timedBlock(block) {
            for message in messages {
                var frame: [UInt8] = []
                frame.reserveCapacity(512)
                message.appendSerialized(to: &frame)
                guard try PeerMessage(frame: frame[...]) == message else { throw BenchError("bytes: the message changed") }
            }
        }
    }
    return (Summary(tree), Summary(bytes))
}

/// The nanoseconds each of `count` runs of `work` took.
private func timedBlock(_ count: Int, _ work: () throws -> Void) throws -> [Double] {
    var samples: [Double] = []
    samples.reserveCapacity(count)
    for _ in 0..<count {
        let start = monotonicNanoseconds()
        try work()
        samples.append(Double(monotonicNanoseconds() - start))
    }
    return samples
}
