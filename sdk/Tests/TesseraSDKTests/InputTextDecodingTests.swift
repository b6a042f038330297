import Foundation
import Testing
@_spi(TesseraHost) import TesseraSDK

// A call whose input is only the JSON text the host sent (the process tier's child,
// `OperationCall(operation:inputText:principal:)`) is decoded by a typed handler straight from the
// text (JSONTape.swift), not through a tree. These tests hold that path to the tree's: the same
// values, and the same refusals — code, message and field — for the same inputs.

/// What a typed handler answers for `text`, sent once as a tree and once as text only.
private func answers<Input: Codable & Sendable>(_ type: Input.Type, _ text: String) async -> (tree: Result<JSONValue, PluginError>, text: Result<JSONValue, PluginError>) {
    let context = PluginContext(pluginID: "dev.test.tape", config: .object([:]), capabilities: [], log: PluginLog { _, _ in })
    context.onOperation("take", input: Input.self) { input, _ in input }
    let handler = context.hostHandlers.operation("take")!
    let principal = Principal(id: "p", role: .user)
    func run(_ call: OperationCall) async -> Result<JSONValue, PluginError> {
        do { return .success(try await handler(call)) } catch let error as PluginError { return .failure(error) } catch {
            return .failure(PluginError(.internal, "\(error)"))
        }
    }
    let tree = (try? JSONValue(parsing: text)) ?? .null
    return (await run(OperationCall(operation: "take", input: tree, principal: principal)),
            await run(OperationCall(operation: "take", inputText: Array(text.utf8), principal: principal)))
}

private struct Tagged: Codable, Equatable, Sendable {
    var id: String
    var title: String
    var amount: Int
    var date: String
    var tags: [String]
    var note: String?
}

private struct ScalarLists: Codable, Equatable, Sendable {
    var names: [String]
    var counts: [Int]
    var shares: [Double]
    var flags: [Bool]
    var maybe: [String]?
}

private struct Nested: Codable, Equatable, Sendable {
    struct Line: Codable, Equatable, Sendable { var name: String; var cents: Int64; var share: Double? }
    var lines: [Line]
    var byName: [String: Int]
    var grid: [[UInt8]]
    var flags: [Bool?]
    var raw: JSONValue
    var when: Date?
    var blob: Data?
    var link: URL?
    var price: Decimal?
    var ratio: Float?
}

/// One member, named with the Kelvin sign (U+212A), which Swift's strings hold equal to "K".
private struct Kelvin: Codable, Sendable {
    let kelvin: Int
    enum CodingKeys: String, CodingKey { case kelvin = "\u{212A}" }
}

@Suite struct InputTextDecodingTests {
    @Test func theTextDecodesToTheSameValuesAsTheTree() async throws {
        let inputs = [
            #"{"id":"a1","title":"Bread","amount":250,"date":"2026-03-02","tags":["food","daily"],"note":"fresh"}"#,
            #"{"id":"a1","title":"Bread","amount":2.5e2,"date":"2026-03-02","tags":[],"note":null}"#,
            #"  {"tags":["\u00e9t\u00e9","\ud83d\ude00","a\"b\\c"], "amount":-7,"id":"x","title":"","date":"d"} "#,
        ]
        for text in inputs {
            let (tree, viaText) = await answers(Tagged.self, text)
            #expect(try tree.get() == viaText.get(), "\(text)")
        }
        let nested = #"""
        {"lines":[{"name":"rent","cents":-120000,"share":0.5},{"name":"milk","cents":129}],
         "byName":{"a":1,"b":-2},"grid":[[1,2],[],[255]],"flags":[true,null,false],
         "raw":{"n":3.0,"i":3,"list":[null,true,{"deep":["x"]}]},
         "when":"2026-03-02T10:00:00.5Z","blob":"AAEC+v8=","link":"https://example.com/a?b=c",
         "price":12.34,"ratio":0.1}
        """#
        let (tree, viaText) = await answers(Nested.self, nested)
        #expect(try tree.get() == viaText.get())
        // The tape's `JSONValue` member is the same tree the parser makes, 3.0 still a number.
        #expect(try viaText.get()["raw"] == ["n": .number(3.0), "i": .integer(3), "list": [nil, true, ["deep": ["x"]]]])
    }

    @Test func aNameGivenTwiceKeepsItsLastValueOnBothPaths() async throws {
        let text = #"{"id":"first","title":"t","amount":1,"date":"d","tags":[],"id":"last"}"#
        let (tree, viaText) = await answers(Tagged.self, text)
        #expect(try viaText.get()["id"] == "last")
        #expect(try tree.get() == viaText.get())
    }

    /// The tape keeps a plain name as its place in the text and an escaped or non-ASCII one decoded,
    /// and a look-up stops at the first match only where no two names of the object are the same:
    /// the same name written both ways, a name that begins another, and an object past the
    /// pairwise comparison's 16 members are all read as the tree reads them.
    @Test func namesWrittenEitherWayAreTheSameNameOnTheTape() async throws {
        let rest = #""title":"t","amount":1,"date":"d","tags":[]"#
        let filler = (0..<20).map { #""x\#($0)":\#($0)"# }.joined(separator: ",")
        let cases: [(text: String, id: String)] = [
            (#"{"id":"first",\#(rest),"id":"last"}"#, "last"),
            (#"{"id":"first",\#(rest),"id":"last"}"#, "last"),
            (#"{"idx":"no","i":"no",\#(rest),"id":"yes","":"empty"}"#, "yes"),
            (#"{"é":"no","id":"yes",\#(rest),"ïd":"no"}"#, "yes"),
            (#"{"id":"first",\#(filler),\#(rest),"id":"last"}"#, "last"),
            (#"{"id":"only",\#(filler),\#(rest)}"#, "only"),
        ]
        for (text, id) in cases {
            let (tree, viaText) = await answers(Tagged.self, text)
            #expect(try viaText.get()["id"] == .string(id), "\(text)")
            #expect(try tree.get() == viaText.get(), "\(text)")
        }
        // A coding key beyond ASCII is compared as a string, as the tree's dictionary does: Swift
        // holds the Kelvin sign equal to "K".
        let (tree, viaText) = await answers(Kelvin.self, #"{"K":273}"#)
        #expect(try viaText.get() == ["\u{212A}": 273])
        #expect(try tree.get() == viaText.get())
    }

    @Test func theTextIsRefusedExactlyAsTheTreeIs() async {
        let refused = [
            #"{"title":"t","amount":1,"date":"d","tags":[]}"#,                              // a member missing
            #"{"id":null,"title":"t","amount":1,"date":"d","tags":[]}"#,                    // null where required
            #"{"id":1,"title":"t","amount":1,"date":"d","tags":[]}"#,                       // a number for a string
            #"{"id":"i","title":"t","amount":1.5,"date":"d","tags":[]}"#,                   // a fraction for an integer
            #"{"id":"i","title":"t","amount":1e40,"date":"d","tags":[]}"#,                  // out of range
            #"{"id":"i","title":"t","amount":"1","date":"d","tags":[]}"#,                   // a string for an integer
            #"{"id":"i","title":"t","amount":1,"date":"d","tags":{"a":"b"}}"#,              // an object for an array
            #"{"id":"i","title":"t","amount":1,"date":"d","tags":["a",2]}"#,                // a wrong element
            #"{"id":"i","title":"t","amount":1,"date":"d","tags":["a",null]}"#,             // a null element
            #"{"id":"i","title":"t","amount":1,"date":"d","tags":"a"}"#,                    // a scalar for an array
            #"{"id":{"x":1},"title":"t","amount":1,"date":"d","tags":[]}"#,                 // an object for a string
            #"{"id":[],"title":"t","amount":1,"date":"d","tags":[]}"#,                      // an array for a string
            #"[]"#, #"3"#, #"null"#, #""text""#,                                            // not an object at all
        ]
        for text in refused { await expectRefusedAlike(Tagged.self, text) }
        let nestedRefused = [
            #"{"lines":[{"name":"a","cents":1},{"name":"b"}],"byName":{},"grid":[],"flags":[],"raw":null}"#,
            #"{"lines":[],"byName":{"a":"1"},"grid":[],"flags":[],"raw":null}"#,
            #"{"lines":[],"byName":{},"grid":[[1],[256]],"flags":[],"raw":null}"#,
            #"{"lines":[],"byName":{},"grid":[],"flags":[1],"raw":null}"#,
            #"{"lines":[],"byName":{},"grid":[],"flags":[],"raw":null,"when":"yesterday"}"#,
            #"{"lines":[],"byName":{},"grid":[],"flags":[],"raw":null,"when":{"a":1}}"#,
            #"{"lines":[],"byName":{},"grid":[],"flags":[],"raw":null,"blob":"***"}"#,
            #"{"lines":[],"byName":{},"grid":[],"flags":[],"raw":null,"price":[1]}"#,
            #"{"lines":[],"byName":{},"grid":[],"flags":[],"raw":null,"ratio":1e300}"#,
            #"{"lines":[],"byName":{},"grid":[],"flags":[],"raw":null,"link":{}}"#,
            #"{"lines":{},"byName":{},"grid":[],"flags":[],"raw":null}"#,
        ]
        for text in nestedRefused { await expectRefusedAlike(Nested.self, text) }
    }

    /// Lists of scalars are read off the tape element by element (`JSONScalar.list`): the same
    /// values as the tree's, and the same refusal at the same element.
    @Test func listsOfScalarsReadOffTheTapeAsFromTheTree() async throws {
        let accepted = [
            #"{"names":["a","\u00e9",""],"counts":[1,-2,3],"shares":[1,0.5,-0.0],"flags":[true,false]}"#,
            #"{"names":[],"counts":[],"shares":[],"flags":[],"maybe":["x","y"]}"#,
        ]
        for text in accepted {
            let (tree, viaText) = await answers(ScalarLists.self, text)
            #expect(try tree.get() == viaText.get(), "\(text)")
        }
        let refused = [
            #"{"names":["a",2],"counts":[],"shares":[],"flags":[]}"#,
            #"{"names":["a",["b"],3],"counts":[],"shares":[],"flags":[]}"#,
            #"{"names":[{"a":1},"b"],"counts":[],"shares":[],"flags":[]}"#,
            #"{"names":[],"counts":[1,1.5],"shares":[],"flags":[]}"#,
            #"{"names":[],"counts":[],"shares":["x"],"flags":[]}"#,
            #"{"names":[],"counts":[],"shares":[],"flags":[false,null]}"#,
            #"{"names":[],"counts":[],"shares":[],"flags":[],"maybe":"x"}"#,
        ]
        for text in refused { await expectRefusedAlike(ScalarLists.self, text) }
    }

    /// Both paths refuse `text` as `invalid_input`, with the same message and field.
    private func expectRefusedAlike<Input: Codable & Sendable>(_ type: Input.Type, _ text: String) async {
        let (tree, viaText) = await answers(type, text)
        guard case .failure(let treeError) = tree, case .failure(let textError) = viaText else {
            Issue.record("both should refuse \(text): \(tree) / \(viaText)")
            return
        }
        #expect(treeError == textError, "\(text)")
        #expect(textError.code == .invalidInput, "\(text)")
    }

    @Test func aFailedElementCanBeRetriedAsAnotherTypeOnTheTape() async throws {
        struct Mixed: Codable, Equatable, Sendable {
            var numbers: [Int] = []
            var words: [String] = []
            var nulls = 0
            init(from decoder: any Decoder) throws {
                var c = try decoder.unkeyedContainer()
                while !c.isAtEnd {
                    if try c.decodeNil() { nulls += 1; continue }
                    if let n = try? c.decode(Int.self) { numbers.append(n) } else { words.append(try c.decode(String.self)) }
                }
            }
        }
        let (tree, viaText) = await answers(Mixed.self, #"[1,"two",null,3,"four"]"#)
        #expect(try viaText.get() == ["numbers": [1, 3], "words": ["two", "four"], "nulls": 1])
        #expect(try tree.get() == viaText.get())
    }

    @Test func anUntypedHandlerReadsTheInputParsedFromTheText() {
        let call = OperationCall(operation: "op", inputText: Array(#"{"a":[1,2.5,"x"]}"#.utf8), principal: Principal(id: "p", role: .user))
        #expect(call.input == ["a": [1, 2.5, "x"]])
        #expect(call.inputText == Array(#"{"a":[1,2.5,"x"]}"#.utf8))
        var changed = call
        changed.input = ["b": true]
        #expect(changed.input == ["b": true])
        #expect(changed.inputText == nil, "text that no longer says the input is not kept")
    }

    @Test func textThatIsNotJSONIsRefusedByATypedHandler() async {
        let (_, viaText) = await answers(Tagged.self, #"{"id": "#)
        guard case .failure(let error) = viaText else { Issue.record("accepted \(viaText)"); return }
        #expect(error.code == .invalidInput)
        #expect(OperationCall(operation: "op", inputText: Array("{".utf8), principal: Principal(id: "p", role: .user)).input == .null)
    }
}
