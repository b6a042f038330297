import Testing
import TesseraSDK

@Suite struct JSONParsingTests {
    @Test func parsesEveryKindOfValue() throws {
        let v = try JSONValue(parsing: #" {"a": [1, -2.5, 3e2, true, false, null], "b": "x\"y\\z\n\u00e9\ud83d\ude00", "c": {}} "#)
        #expect(v["a"] == [1, -2.5, 300.0, true, false, nil])
        #expect(v["b"] == "x\"y\\z\né😀")
        #expect(v["c"] == [:])
        #expect(try JSONValue(parsing: #""plain""#) == "plain")
        #expect(try JSONValue(parsing: "9223372036854775807") == .integer(.max))
        #expect(try JSONValue(parsing: "9223372036854775808") == .number(9_223_372_036_854_775_808))
    }

    @Test(arguments: [
        ("", "unexpected end of input"), ("{", "member name"), ("[1,]", "unexpected character"), ("01", "leading zero"),
        ("\"a\u{1}\"", "control character"), ("\"\\x\"", "invalid escape"), ("\"\\ud83d\"", "unpaired surrogate"),
        ("\"abc", "unterminated string"), ("nul", "expected 'null'"), ("1 2", "after the value"), ("{\"a\" 1}", "':'"),
    ])
    func refusesMalformedTextSayingWhy(_ text: String, _ reason: String) {
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
        do { _ = try JSONValue(parsing: text) } catch { #expect(error.reason.contains(reason), "\(error)") }
    }

    @Test func refusesInvalidUTF8InStringsOnBothPaths() {
        let plain: [UInt8] = [0x22, 0x61, 0xFF, 0x22]
        let escaped: [UInt8] = [0x22, 0x5C, 0x6E, 0xFF, 0x22]
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: plain) }
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: escaped) }
    }

    @Test func refusesNestingPastTheLimit() {
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: deep) }
        #expect((try? JSONValue(parsing: deep, maxDepth: 256)) != nil)
    }

    @Test func serializedTextParsesBackToTheSameValue() throws {
        let v: JSONValue = ["s": "tab\there \"quoted\" \u{7}", "n": [1, 2.25, -0.5], "o": ["k": nil]]
        #expect(try JSONValue(parsing: v.serialized()) == v)
        #expect(try JSONValue(parsing: v.prettySerialized()) == v)
    }

    @Test func aMemberNamedTwiceKeepsItsLastValue() throws {
        #expect(try JSONValue(parsing: #"{"a": 1, "b": 2, "a": 3}"#) == ["a": 3, "b": 2])
        #expect(try JSONValue(parsing: #"{"a": {"x": 1}, "a": {"y": 2}}"#) == ["a": ["y": 2]])
    }

    @Test func anObjectOfManyMembersKeepsThemAll() throws {
        let members = (0..<100).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
        let parsed = try JSONValue(parsing: "{" + members + "}")
        #expect(parsed.objectValue?.count == 100)
        #expect(parsed["k0"] == 0 && parsed["k99"] == 99)
    }

    @Test func aSliceOfABufferParsesAsTheSameBytesWould() throws {
        // The process tier parses frames as slices of its read buffer.
        let buffer = Array("xx{\"a\": [1, \"é\"]}yy".utf8)
        #expect(try JSONValue(parsing: buffer[2..<(buffer.count - 2)]) == ["a": [1, "é"]])
        #expect(throws: JSONParseError.self) { try JSONValue(parsing: buffer[0..<(buffer.count - 2)]) }
    }
}
