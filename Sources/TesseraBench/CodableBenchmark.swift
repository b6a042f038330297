import Foundation
@_spi(TesseraHost) import TesseraSDK

// `tessera-bench codable [N]`: a typed handler's Codable work alone — the echo's input decoded from
// its tree (in process) and from its text (the process tier), the answer encoded and written, and
// a tree written as the frames and answers are — beside Foundation's `JSONDecoder` and
// `JSONEncoder` doing the same in the same run. The SDK is a library built with library
// evolution, so a plugin's `init(from:)` reaches its decoder through the runtime's generic
// machinery; this is where that shows (docs/benchmarks.md, "A typed handler's Codable work").
//
// It runs on the main thread before any task starts and starts none, so it also runs under
// `valgrind --tool=cachegrind`, whose instruction counts do not move with the machine's speed as
// times here do (see the docs for the command).

/// The echo's input, as the example plugin declares it.
private struct EchoInput: Codable {
    let id: String, title: String, amount: Int, date: String, tags: [String], note: String?
}

/// The same without its list: the path of a struct of scalars only.
private struct EchoInputWithoutList: Codable {
    let id: String, title: String, amount: Int, date: String, note: String?
}

/// The echo's answer.
private struct EchoAnswer: Codable { let ok: Bool, count: Int }

/// One measured piece of work and its name.
struct CodableWork {
    let name: String
    let run: () throws -> Void

    // The names the report divides by one another.
    static let parseAndDecode = "parse and decode"
    static let encodeAndWrite = "encode the answer and write it"
    static let decoderAnchor = "anchor: JSONDecoder"
    static let encoderAnchor = "anchor: JSONEncoder"
}

/// The pieces `tessera-bench codable` times: the SDK's, then Foundation's doing the same.
func codableWork() throws -> [CodableWork] {
    let text = Array(echoInputJSON.utf8)
    let data = Data(text)
    let tree = try JSONValue(parsing: text)
    let textCall = OperationCall(operation: "echo", inputText: text, principal: Principal(id: "bench", role: .user))
    let decoder = JSONDecoder()
    let encoder = JSONEncoder()
    return [
        CodableWork(name: "decode, from the tree") { _ = try tree.decode(as: EchoInput.self) },
        CodableWork(name: "decode, no list, from the tree") { _ = try tree.decode(as: EchoInputWithoutList.self) },
        // The process tier's child: the input as the host sent it, read through the tape (JSONTape.swift).
        CodableWork(name: "decode, from the text") { _ = try textCall.decodeInput(as: EchoInput.self) },
        CodableWork(name: CodableWork.parseAndDecode) { _ = try JSONValue(parsing: text).decode(as: EchoInput.self) },
        CodableWork(name: CodableWork.encodeAndWrite) {
            var out: [UInt8] = []
            try JSONValue(encoding: EchoAnswer(ok: true, count: 3)).appendSerialized(to: &out)
        },
        CodableWork(name: "write the input's tree") {
            var out: [UInt8] = []
            tree.appendSerialized(to: &out)
        },
        CodableWork(name: CodableWork.decoderAnchor) { _ = try decoder.decode(EchoInput.self, from: data) },
        CodableWork(name: CodableWork.encoderAnchor) { _ = try encoder.encode(EchoAnswer(ok: true, count: 3)) },
    ]
}

/// Each piece's time per run: blocks of 1,000 runs, in turns, `rounds` blocks each.
func codableBenchmark(rounds: Int) throws -> [(name: String, summary: Summary)] {
    let work = try codableWork()
    var samples = work.map { _ in [Double]() }
    for _ in 0..<rounds {
        for (i, piece) in work.enumerated() {
            let start = monotonicNanoseconds()
            for _ in 0..<1_000 { try piece.run() }
            samples[i].append(Double(monotonicNanoseconds() - start) / 1_000)
        }
    }
    return zip(work, samples).map { ($0.name, Summary($1)) }
}

/// `tessera-bench codable [N]`: each piece's line, then the SDK's two against Foundation's.
func reportCodableBenchmark(rounds: Int) throws {
    print("codable: the echo's input decoded and its answer encoded, by the SDK and by Foundation, \(rounds) blocks of 1,000 each, in turns")
    let results = try codableBenchmark(rounds: rounds)
    for (name, summary) in results { report("  " + name, summary, unit: { String(format: "%.0f ns", $0) }, target: "") }
    let median = Dictionary(uniqueKeysWithValues: results.map { ($0.name, $0.summary.median) })
    func ratio(_ ours: String, _ anchor: String) -> Double { (median[ours] ?? .nan) / (median[anchor] ?? .nan) }
    print(String(format: "  parse and decode ÷ JSONDecoder %.2f; encode and write ÷ JSONEncoder %.2f",
                 ratio(CodableWork.parseAndDecode, CodableWork.decoderAnchor), ratio(CodableWork.encodeAndWrite, CodableWork.encoderAnchor)))
}

/// `tessera-bench codable-only NAME COUNT`: one piece `COUNT` times and nothing else, for an
/// instruction count (the difference of two counts, divided by the difference of `COUNT`s, is one
/// run's).
func codableOnly(_ name: String, count: Int) throws {
    let work = try codableWork()
    guard let piece = work.first(where: { $0.name == name }) else {
        throw BenchError("no piece named \(name); the pieces: \(work.map(\.name).joined(separator: ", "))")
    }
    for _ in 0..<count { try piece.run() }
}
