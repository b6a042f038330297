import Foundation
import Testing
@_spi(TesseraHost) import TesseraSDK
@testable import TesseraIsolation

/// The process tier's messages are read and written without a `JSONValue` for their envelope
/// (issue 48): what goes out must be the JSON the envelope names, and what comes in must read as
/// a JSON parser would read the whole frame, or be refused as a parser would refuse it.
@Suite struct PeerMessageTests {
    private func read(_ text: String) throws -> PeerMessage { try PeerMessage(frame: ArraySlice(Array(text.utf8))) }

    /// A message as read, an answer's text read into a value: what this side wrote, if it wrote it.
    private func readBack(_ text: String) throws -> PeerMessage {
        let message = try read(text)
        guard case .answer(let id, let result) = message else { return message }
        return .reply(id: id, result: try result.value())
    }

    private func written(_ message: PeerMessage) -> String {
        var out: [UInt8] = []
        message.appendSerialized(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    private let payload: JSONValue = [
        "title": "a \"quoted\" {brace} [bracket] \\ and ✓", "amount": 12550, "tags": ["food", "}", "]"],
        "nested": ["deep": [["x": .null, "y": true, "z": -1.5e3]]],
    ]

    @Test func eachMessageWrittenIsTheJSONOfItsEnvelopeAndReadsBackTheSame() throws {
        let messages: [PeerMessage] = [
            .call(id: 7, method: "start", params: payload), .call(id: 0, method: "log", params: .null),
            .operation(id: 8, OperationFrame(operation: "add \"x\"", principal: Principal(id: "pé", role: .admin), inputText: Array(payload.serialized().utf8))),
            .call(id: 3, method: "méthode \"odd\"", params: []), .reply(id: 12, result: payload),
            .reply(id: 1, result: .string("")), .failure(id: 9, error: ["code": "invalid_input", "message": "no"]),
        ]
        for message in messages {
            let text = written(message)
            // The same text the whole object serialises to, so either side may read it as JSON.
            #expect(try JSONValue(parsing: text) == message.json)
            #expect(try readBack(text) == message)
        }
    }

    @Test func anEnvelopeReadsAsAParserReadsItInAnyOrderAndSpacing() throws {
        #expect(try read(#" { "params" : {"a":[1,{"b":"}"}]} , "method":"start",  "call":42 } "#)
            == .call(id: 42, method: "start", params: ["a": [1, ["b": "}"]]]))
        #expect(try read(#"{"result":null,"reply":5}"#) == .answer(id: 5, AnswerText(bytes: Array("null".utf8))))
        #expect(try read(#"{"reply":5}"#) == .answer(id: 5, AnswerText(bytes: Array("null".utf8))))
        // An answer's result is kept as the text it is, for its caller (``AnswerText``).
        #expect(try read(#"{"reply":6,"result": { "b" : 1,"a":[ 2 ] } }"#) == .answer(id: 6, AnswerText(bytes: Array(#"{ "b" : 1,"a":[ 2 ] }"#.utf8))))
        #expect(try read(#"{"reply":-2,"error":{"opaque":"x"}}"#) == .failure(id: -2, error: ["opaque": "x"]))
        // Spelled in ways the quick readers leave to the parser.
        #expect(try read(#"{"call":1E1,"method":"\u0073tart","params":1}"#) == .call(id: 10, method: "start", params: 1))
        #expect(try read(#"{"\u0063all":4,"method":"m"}"#) == .call(id: 4, method: "m", params: .null))
        // A field the protocol does not name is read and left; an object that is no message is dropped.
        #expect(try read(#"{"call":2,"method":"m","extra":[{"}":"]"}],"params":true}"#) == .call(id: 2, method: "m", params: true))
        #expect(try read(#"{"method":"m"}"#) == .other)
        #expect(try read("{}") == .other)
    }

    @Test func aFrameThatIsNotOneJSONObjectIsRefused() {
        let broken = [
            "", #"{"call":1"#, #"{"call":1,"method":"m"} x"#, #"{"call":1,"method":"m",}"#,
            #"{"call":1 "method":"m"}"#, #"{"call":1,"method":"m","params":{"a":}}"#, #"{"call":1,"method":"m","params":tru}"#,
            #"{"call":1,"method":"m","other":[1,}"#, #"{"call":1,"method":"unclosed}"#, #"{"reply":1,"result":"\"}"#,
            #"{"call":"#,
        ]
        for text in broken {
            #expect(throws: FrameError.self, "\(text)") { try read(text) }
            // …as the SDK's parser refuses the whole text.
            #expect(throws: (any Error).self, "\(text)") { try JSONValue(parsing: text) }
        }
        // JSON, but no message: every frame of the protocol is one object.
        #expect(throws: FrameError.self) { try read("[1]") }
        #expect(throws: FrameError.self) { try read("7") }
        // An answer's result is left to its caller, who refuses it as the parser would.
        guard case .answer(_, let result) = try? read(#"{"reply":1,"result":01}"#) else { Issue.record("not read as an answer"); return }
        #expect(throws: FrameError.self) { try result.value() }
        #expect(throws: FrameError.self) { try result.checkedText() }
    }

    @Test func messagesCrossASocketPairWhole() throws {
        var fds: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let left = FrameConnection(fd: fds[0]), right = FrameConnection(fd: fds[1])
        try left.send(.call(id: 1, method: "start", params: payload))
        try left.send(.reply(id: 2, result: payload))
        #expect(try right.receiveMessage() == .call(id: 1, method: "start", params: payload))
        #expect(try right.bufferedMessage() == .answer(id: 2, AnswerText(payload)))
        #expect(try right.bufferedMessage() == nil)
    }

    @Test func anOperationsInputCrossesAsTheTextItIs() throws {
        let input = Array(#"{ "b" : 1,"a":[ 2, "}" ] }"#.utf8)
        let frame = OperationFrame(operation: "add-note", principal: Principal(id: "p-1", role: .user), inputText: input)
        let text = written(.operation(id: 4, frame))
        #expect(text == #"{"call":4,"method":"operation","params":{"operation":"add-note","principal":{"id":"p-1","role":"user"},"input":{ "b" : 1,"a":[ 2, "}" ] }}}"#)
        guard case .operation(4, let back) = try read(text) else { Issue.record("not read as an operation: \(text)"); return }
        #expect(back.inputText == input, "the bytes, not a tree written again")
        #expect(back.call.input == ["a": [2, "}"], "b": 1])
        // A call with text hands on that text; one without writes its tree once.
        let call = OperationCall(operation: "o", input: ["x": 1], inputText: Array(#"{"x" :1}"#.utf8), principal: Principal(id: "p", role: .user))
        #expect(OperationFrame(call).inputText == Array(#"{"x" :1}"#.utf8))
        #expect(OperationFrame(OperationCall(operation: "o", input: ["x": 1], principal: Principal(id: "p", role: .user))).inputText == Array(#"{"x":1}"#.utf8))
    }

    @Test func anOperationWrittenAsATreeReadsAsTheSameOperation() throws {
        let call = OperationCall(operation: "echo", input: payload, principal: Principal(id: "u", role: .system))
        guard case .operation(5, let frame) = try read(written(.call(id: 5, method: "operation", params: call.wire))) else {
            Issue.record("not read as an operation"); return
        }
        #expect(frame.params == call.wire)
        #expect(frame.operation == "echo" && frame.principal == call.principal)
        // Left out: the principal is the user "", the input null (as `OperationCall(wire:)` reads them).
        guard case .operation(6, let bare) = try read(#"{"call":6,"method":"operation","params":{"operation":"e"}}"#) else {
            Issue.record("not read as an operation"); return
        }
        #expect(bare.principal == Principal(id: "", role: .user) && bare.call.input == .null)
        // Number 0 asks for no answer: not an operation call to answer, read as any call.
        #expect(try read(#"{"call":0,"method":"operation","params":{"operation":"e"}}"#) == .call(id: 0, method: "operation", params: ["operation": "e"]))
    }

    @Test func anOperationWithoutANameOrWithBrokenParamsIsRefused() {
        let broken = [
            #"{"call":1,"method":"operation","params":{"input":1}}"#, #"{"call":1,"method":"operation","params":{"operation":2}}"#,
            #"{"call":1,"method":"operation","params":{"operation":"o","principal":{"id":3}}}"#,
            #"{"call":1,"method":"operation","params":{"operation":"o","extra":[1,}}"#,
            #"{"call":1,"method":"operation","params":[1]}"#, #"{"call":1,"method":"operation","params":{"operation":"o"} x}"#,
        ]
        for text in broken { #expect(throws: FrameError.self, "\(text)") { try read(text) } }
    }
}
