import Foundation
import Testing
@testable import TesseraBaby
import TesseraSDK
import TesseraTesting

/// The permission matrix of specs/baby-diary.md §5, as a pure function and through the module.
@Suite struct BabyPermissionTests {
    @Test func theMatrix() {
        let cases: [(AccessLevel, DiaryAction, Bool)] = [
            (.owner, .deleteChild, true), (.parent, .deleteChild, false), (.guardian, .deleteChild, false),
            (.owner, .share, true), (.parent, .share, false), (.guardian, .share, false),
            (.parent, .editHealthCard, true), (.guardian, .editHealthCard, false),
            (.parent, .editBasic, true), (.guardian, .editBasic, false),
            (.guardian, .createRecord, true),
            (.guardian, .changeRecord(createdBy: "nana"), true), (.guardian, .changeRecord(createdBy: "ada"), false),
            (.parent, .changeRecord(createdBy: "ada"), true),
            (.parent, .export, true), (.guardian, .export, false),
        ]
        for (level, action, allowed) in cases {
            #expect(Permissions.allows(level, action, me: "nana") == allowed, "\(level) \(action)")
        }
    }

    /// Issue 41, defect 3: a name given for one person is not the next person's. Ada named
    /// herself; then bob uses the device (as after a logout and a login as him): his records carry
    /// his own name, not "Ada".
    @Test func theNextPersonOnADeviceDoesNotSignWithThePreviousOnesName() async throws {
        let host = try await BabyFixture.host()
        _ = try await host.call("profile-set", ["person": "ada", "name": "Ada"])
        let child = try await host.call("child-create", ["name": "Ema", "birthDate": "2025-06-15"])
        let id = try #require(child["id"])
        #expect(try await host.call("measurement-add", ["childId": id, "kind": "weight", "value": 8, "date": "2026-03-01"])["authorName"] == "Ada")
        let bob = try await host.call("profile-set", ["person": "bob"])
        #expect(bob["name"] == "bob", "\(bob)")
        let bobs = try await host.call("temperature-add", ["childId": id, "celsius": 37.5, "at": "2026-03-01T20:00"])
        #expect(bobs["authorName"] == "bob", "\(bobs)")
        // Back to ada: her own name again.
        #expect(try await host.call("profile-set", ["person": "ada"])["name"] == "Ada")
    }

    /// The child's creator is "ada"; then "nana", who has no grant from ada, uses the device: she
    /// is treated as the least level, a guardian.
    @Test func aGuardianAddsRecordsChangesOnlyHerOwnAndNeverTheHealthCard() async throws {
        let host = try await BabyFixture.host()
        _ = try await host.call("profile-set", ["person": "ada", "name": "Ada"])
        let child = try await host.call("child-create", ["name": "Ema", "birthDate": "2025-06-15"])
        let id = try #require(child["id"])
        let adas = try await host.call("measurement-add", ["childId": id, "kind": "weight", "value": 8, "date": "2026-03-01"])
        #expect(adas["authorName"] == "Ada")

        _ = try await host.call("profile-set", ["person": "nana", "name": "Chůva"])
        #expect(try await host.call("child-get", ["id": id])["level"] == "guardian")
        let before = try await BabyFixture.counts(host)
        let card = await refusal { try await host.call("health-card-set", ["childId": id, "bloodGroup": "0+"]) }
        #expect(card?.code == .forbidden && card?.reason == "health_card_read_only")
        let allergy = await refusal { try await host.call("allergy-add", ["childId": id, "allergen": "pyl", "severity": "mild"]) }
        #expect(allergy?.reason == "health_card_read_only")
        let vaccination = await refusal { try await host.call("vaccination-add", ["childId": id, "name": "MMR", "date": "2026-03-05"]) }
        #expect(vaccination?.reason == "health_card_read_only")
        let rename = await refusal { try await host.call("child-update", ["id": id, "name": "Emička"]) }
        #expect(rename?.reason == "basic_data_read_only")
        let othersRecord = await refusal { try await host.call("record-update", ["id": try #require(adas["id"]), "value": 9]) }
        #expect(othersRecord?.reason == "not_record_creator")
        let export = await refusal { try await host.call("export", ["childId": id]) }
        #expect(export?.reason == "export_forbidden")
        #expect(try await BabyFixture.counts(host) == before)

        let hers = try await host.call("temperature-add", ["childId": id, "celsius": 37.8, "at": "2026-03-02T08:30"])
        #expect(hers["createdBy"] == "nana")
        #expect(try await host.call("record-update", ["id": try #require(hers["id"]), "value": 37.9])["value"] == .number(37.9))
        _ = try await host.call("record-delete", ["id": try #require(hers["id"])])
    }

    @Test func theOwnerExportsTheChosenSections() async throws {
        let (host, id) = try await BabyFixture.withChild()
        _ = try await host.call("measurement-add", ["childId": .string(id), "kind": "weight", "value": 8, "date": "2026-03-01"])
        let export = try await host.call("export", ["childId": .string(id), "sections": ["profile", "measurements"]])
        #expect(export["sections"]?.objectValue?.keys.sorted() == ["measurements", "profile"])
        #expect(export["sections"]?["measurements"]?.arrayValue?.count == 1)
    }
}
