import Testing
@_spi(TesseraHost) import TesseraSDK

/// ``JSONValue/check(text:maxDepth:)``: the host hands a process-tier plugin's answer on as the
/// text it came as, so the check must pass exactly the texts the parser accepts, with its errors.
@Suite struct JSONCheckTests {
    /// Texts the parser accepts and refuses: each checked, and compared with what parsing says.
    static let texts: [String] = [
        #" {"a": [1, -2.5, 3e2, true, false, null], "b": "x\"y\\z\n\u00e9\ud83d\ude00", "c": {}} "#,
        #""plain""#, "9223372036854775808", "[]", "{}", #"{"a": 1, "a": 2}"#, "0", "-0.5e-3",
        "", "{", "[1,]", "01", "\"a\u{1}\"", "\"\\x\"", "\"\\ud83d\"", "\"abc", "nul", "1 2", "{\"a\" 1}",
        "1e400", "[1 2]", "{\"a\":1,}", "{1: 2}", "[", "\"\\u12\"", "-", "1.", "1e",
    ]

    @Test(arguments: texts)
    func passesExactlyWhatParsingAcceptsWithTheSameError(_ text: String) {
        let bytes = Array(text.utf8)
        let parsed = Result { () throws(JSONParseError) in try JSONValue(parsing: bytes) }
        let checked = Result { () throws(JSONParseError) in try JSONValue.check(text: bytes) }
        switch (parsed, checked) {
        case (.success, .success): break
        case (.failure(let parseError), .failure(let checkError)): #expect(parseError == checkError)
        default: Issue.record("parsing and checking disagree on \(text.debugDescription): \(parsed) against \(checked)")
        }
    }

    @Test func refusesInvalidUTF8AndNestingPastTheLimitAsParsingDoes() {
        #expect(throws: JSONParseError.self) { try JSONValue.check(text: [0x22, 0x61, 0xFF, 0x22]) }
        #expect(throws: JSONParseError.self) { try JSONValue.check(text: [0x22, 0x5C, 0x6E, 0xFF, 0x22]) }
        let deep = Array((String(repeating: "[", count: 200) + String(repeating: "]", count: 200)).utf8)
        #expect(throws: JSONParseError.self) { try JSONValue.check(text: deep) }
        #expect((try? JSONValue.check(text: deep, maxDepth: 256)) != nil)
    }
}
