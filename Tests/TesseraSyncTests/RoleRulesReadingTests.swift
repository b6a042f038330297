import Testing
import TesseraSDK
import TesseraSync

/// Kept role rules are read back whole or not at all: text that does not read as rules is an
/// error, never "no rules", which would let every member write everything (the hub's check and
/// the device's both read them with `SyncRoleRules.parse`).
@Suite struct RoleRulesReadingTests {
    @Test func noTextIsNoRulesAndRulesReadBackAsTheyWereKept() throws {
        #expect(try SyncRoleRules.parse(nil) == nil)
        let kept = try SyncRoleRules(json: ["guardian": ["hubRole": "editor", "tables": ["records": "own"]]])
        let read = try #require(try SyncRoleRules.parse(kept.json.serialized()))
        #expect(read.json == kept.json)
    }

    @Test(arguments: ["not json", #"{"guardian": {"hubRole": "superuser"}}"#, "[]"])
    func textThatIsNotRulesIsAnErrorNotNoRules(text: String) {
        #expect(throws: SyncRoleRules.RuleError.self) { try SyncRoleRules.parse(text) }
    }
}
