import TesseraTestFixtures
import Foundation
import Testing
@testable import TesseraStress
import TesseraTesting

/// Reminders tied to the study's last day, the nudge before an exam the IS/STAG module announces,
/// and the versioned content pack.
@Suite(.hangWatchdog) struct StressCompositionTests {
    static let exam: JSONValue = ["termId": 1_118_482, "subject": "KMI/PRG", "subjectName": "Programování", "start": "2026-01-20T09:00:00+01:00", "room": "UP-105"]

    @Test func theEveningBeforeAnExamTheModuleSuggestsRelaxingOrReading() async throws {
        let host = try await StressFixture.consented()
        try await host.deliver("exam-upcoming", from: "cz.tessera.stag", payload: Self.exam)
        let nudge = try #require(try host.pendingNotifications().first { $0.request.key == "exam-eve-1118482" })
        #expect(nudge.nextDue == Date("2026-01-19T18:00:00Z"))  // 19:00 in Prague, the evening before
        #expect(nudge.request.body.contains("Programování") && nudge.request.payload["open"] == "library")

        // A term the student is not registered for cancels it; an exam whose evening has passed is ignored.
        var unregistered = Self.exam
        if case .object(var members) = unregistered { members["registered"] = false; unregistered = .object(members) }
        try await host.deliver("exam-upcoming", from: "cz.tessera.stag", payload: unregistered)
        #expect(try host.pendingNotifications().allSatisfy { $0.request.key != "exam-eve-1118482" })
        try await host.deliver("exam-upcoming", from: "cz.tessera.stag", payload: ["termId": 5, "subject": "KMA/M1", "start": "2026-01-01T10:00:00+01:00"])
        #expect(try host.pendingNotifications().isEmpty)
        _ = try await host.advanceClock(by: Date("2026-01-19T18:30:00Z").timeIntervalSince(host.now))
        #expect(try host.deliveredNotifications().isEmpty)
        await host.stop()
    }

    @Test func withoutTheStagModuleTheModuleWorksAlone() async throws {
        let host = try await StressFixture.inWeekOne()
        #expect(try await host.call("dashboard", ["seed": 3])["programme"]?["next"] == "week")
        #expect(try host.publishedEvents().isEmpty)
        await host.stop()
    }

    @Test func theLastDayIsAnnouncedAWeekAndADayBeforeAndFinishingCancelsIt() async throws {
        let host = try await StressFixture.inWeekOne(config: ["deadline": "2026-01-31"])
        let pending = try host.pendingNotifications()
        #expect(pending.first { $0.request.key == "deadline-7" }?.nextDue == Date("2026-01-24T08:00:00Z"))
        #expect(pending.first { $0.request.key == "deadline-1" }?.nextDue == Date("2026-01-30T08:00:00Z"))
        // Changing the time zone moves them.
        _ = try await host.call("settings-set", ["timeZone": "Europe/London"])
        #expect(try host.pendingNotifications().first { $0.request.key == "deadline-1" }?.nextDue == Date("2026-01-30T09:00:00Z"))
        _ = try await host.advanceClock(by: Date("2026-01-24T09:30:00Z").timeIntervalSince(host.now))
        #expect(try host.deliveredNotifications().map(\.key).contains("deadline-7"))
        let reminders = try await host.call("reminders")
        #expect(reminders["pending"]?["deadline-1"] == "2026-01-30T09:00:00Z")
        await host.stop()
    }

    @Test func theContentPackIsVersionedAndOnlyANewerValidOneReplacesIt() async throws {
        #expect(throws: Never.self) { try ShippedContent.pack.validate() }
        let host = try await StressFixture.consented()
        let version = ShippedContent.pack.version
        #expect(try await host.call("content-version", ["since": .integer(Int64(version))]) == ["version": .integer(Int64(version)), "unchanged": true])
        #expect(try await host.call("content-version")["pack"]?["library"]?.arrayValue?.count == ShippedContent.pack.library.count)

        var newer = try JSONValue(encoding: ShippedContent.pack)
        func set(_ key: String, _ value: JSONValue) { if case .object(var o) = newer { o[key] = value; newer = .object(o) } }
        #expect(await refusal { try await host.call("content-publish", ["pack": newer], as: .admin) }?.reason == "content_outdated")
        #expect(await refusal { try await host.call("content-publish", ["pack": newer]) }?.code == "forbidden")  // administrators only
        set("version", .integer(Int64(version + 1)))
        var library = newer["library"]!.arrayValue!
        library.append(["id": "L9", "parent": "L404", "position": 9, "title": ["cs": "Sirotek"], "text": ["cs": "…"]])
        set("library", .array(library))
        #expect(await refusal { try await host.call("content-publish", ["pack": newer], as: .admin) }?.code == "invalid_input")
        library[library.count - 1] = ["id": "L9", "parent": "L2.1", "position": 9, "title": ["cs": "Spánek"], "text": ["cs": "Spi aspoň sedm hodin."]]
        set("library", .array(library))
        #expect(try await host.call("content-publish", ["pack": newer], as: .admin)["version"] == .integer(Int64(version + 1)))
        let page = try await host.call("library", ["id": "L9"])
        #expect(page["title"] == "Spánek" && page["path"]?.arrayValue?.map { $0["id"] } == ["L2", "L2.1"])
        #expect(try await host.call("library", ["id": "L2.1"])["children"]?.arrayValue?.map { $0["id"] } == ["L9"])
        #expect(try await host.call("content-version", ["since": .integer(Int64(version))])["unchanged"] == false)
        #expect(try await host.call("about-tech")["contentVersion"] == .integer(Int64(version + 1)))
        await host.stop()
    }

    @Test func brokenPacksAreRefusedWhole() throws {
        var pack = ShippedContent.pack
        pack.diaryQuestions.removeAll { $0.level == 3 }
        #expect(throws: PluginError.self) { try pack.validate() }
        pack = ShippedContent.pack
        pack.goalQuestions[0].isGoal = true  // two goal questions
        #expect(throws: PluginError.self) { try pack.validate() }
        pack = ShippedContent.pack
        pack.library[0].parent = "L1.2.1"  // a cycle
        #expect(throws: PluginError.self) { try pack.validate() }
        pack = ShippedContent.pack
        pack.programs.swapAt(0, 1)
        #expect(throws: PluginError.self) { try pack.validate() }
    }

    /// Slovak readers get Slovak, not Czech copied under the Slovak key: every localized text of the
    /// shipped pack has its own, wherever it is in the pack (a field added later is walked too).
    @Test func everyShippedTextHasASlovakTranslationOfItsOwn() {
        let texts = Self.localizedTexts(in: ShippedContent.pack, at: "pack")
        // The walk reaches every localized object of the JSON (each has exactly one "cs").
        #expect(texts.count == ShippedContent.json.components(separatedBy: "\"cs\":").count - 1)
        for (place, text) in texts {
            #expect(!(text.sk ?? "").trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(place) has no Slovak text")
            #expect(!(text.sk == text.cs && text.cs.count > 20), "\(place): the Slovak text is the Czech one copied: \(text.cs)")
        }
    }

    /// Every `Localized` value under `value` with where it is (`pack.library[3].title`), by the
    /// stored properties, arrays and optionals the pack is made of.
    static func localizedTexts(in value: Any, at place: String) -> [(place: String, text: ContentPack.Localized)] {
        if let text = value as? ContentPack.Localized { return [(place, text)] }
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .collection?:
            return mirror.children.enumerated().flatMap { localizedTexts(in: $0.element.value, at: "\(place)[\($0.offset)]") }
        case .optional?:
            return mirror.children.flatMap { localizedTexts(in: $0.value, at: place) }
        default:
            return mirror.children.flatMap { localizedTexts(in: $0.value, at: "\(place).\($0.label ?? "?")") }
        }
    }

    @Test func theTeamsContactsCanBeTappedAndTheLibraryGoesToAnyDepth() async throws {
        let host = try await StressFixture.host()
        let member = try await host.call("about-team")["categories"]?[0]?["members"]?[0]
        #expect(member?["emailLink"] == "mailto:pomoc@nestresuju.cz" && member?["phoneLink"] == "tel:+420777123123")
        let deep = try await host.call("library", ["id": "L1.2.1"])
        #expect(deep["path"]?.arrayValue?.map { $0["id"] } == ["L1", "L1.2"] && deep["children"]?.arrayValue?.isEmpty == true)
        #expect(await refusal { try await host.call("library", ["id": "nope"]) }?.code == "not_found")
        await host.stop()
    }
}
