import TesseraTestFixtures
import Foundation
import TesseraSDK
import TesseraSTAG
import TesseraSTAGEmulator
import TesseraTesting
import Testing

/// The reminders: each switchable with a lead time, rescheduled from what was last read; and
/// `exam-upcoming` when the student registers.
@Suite("STAG reminders", .hangWatchdog)
struct STAGReminderTests {
    func pending(_ f: STAGFixture) throws -> [String: Date] {
        Dictionary(uniqueKeysWithValues: try f.host.pendingNotifications().compactMap { n in n.nextDue.map { (n.request.key, $0) } })
    }

    @Test func registrationExamAndTicketRemindersFollowTheTermsAndTheSettings() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            // 90 days for the long ticket the login asked for, the reminder 3 days before.
            #expect(try pending(f)["stag:ticketExpiring:ticket"] == Date(timeIntervalSince1970: 1_767_225_600 + 87 * 86_400))
            _ = try await f.host.call("refresh")
            // PRG's term on 20.1. 9:00 closes registration on 19.1. 9:00 Prague (08:00Z): a day before, by default.
            #expect(try pending(f)["stag:registrationCloses:1118482"] == STAGEmulator.pragueDate("18.1.2026 9:00"))
            #expect(try pending(f)["stag:examBefore:1118482"] == nil)

            _ = try await f.host.call("exam-register", ["termId": 1118482])
            _ = try await f.host.call("refresh")
            var now = try pending(f)
            #expect(now["stag:registrationCloses:1118482"] == nil)
            #expect(now["stag:examBefore:1118482"] == STAGEmulator.pragueDate("19.1.2026 9:00"))
            // Issue 42: a second reminder two hours before, as the spec asks (time-sensitive: it is time to go).
            #expect(now["stag:examSoon:1118482"] == STAGEmulator.pragueDate("20.1.2026 7:00"))
            #expect(now["stag:unregisterDeadline:1118482"] == STAGEmulator.pragueDate("18.1.2026 9:00"))
            #expect(try f.host.publishedEvents().last?.payload["registered"] == true)  // other modules hear of it
            // The English text (webhooks, e-mail) says the time as people read it, in Prague time.
            let requests = Dictionary(uniqueKeysWithValues: try f.host.pendingNotifications().map { ($0.request.key, $0.request) })
            let soon = try #require(requests["stag:examSoon:1118482"])
            #expect(soon.body.hasPrefix("Tue 20 Jan 09:00") && soon.priority == .timeSensitive, "\(soon.body)")
            #expect(requests["stag:unregisterDeadline:1118482"]?.body == "Until Mon 19 Jan 09:00", "\(requests["stag:unregisterDeadline:1118482"]?.body ?? "")")

            _ = try await f.host.call("notifications-configure", ["examBefore": ["leadMinutes": 120], "unregisterDeadline": ["enabled": false]])
            now = try pending(f)
            #expect(now["stag:examBefore:1118482"] == STAGEmulator.pragueDate("20.1.2026 7:00"))
            #expect(now["stag:unregisterDeadline:1118482"] == nil)
            let status = try await f.host.call("notifications-status")
            #expect(status["settings"]?["examBefore"] == ["enabled": true, "leadMinutes": 120])
            #expect(await failure { try await f.host.call("notifications-configure", ["examBefore": ["leadMinutes": -5]]) }?.code == .invalidInput)

            // Switching "new term" off stops its notification; the event still goes out.
            _ = try await f.host.call("notifications-configure", ["newTerm": ["enabled": false]])
            f.emulator.addTerm(EmulatorTerm(id: 2000002, department: "KMI", subject: "ALG", start: STAGEmulator.pragueDate("5.2.2026 10:00"),
                                            room: "101", limit: 10, registerFrom: STAGEmulator.pragueDate("20.1.2026 8:00")))
            _ = try await f.host.call("refresh")
            now = try pending(f)
            #expect(now["stag:term:2000002"] == nil)
            #expect(try f.host.publishedEvents().last?.payload["termId"] == 2000002)
            #expect(now["stag:registrationOpens:2000002"] == STAGEmulator.pragueDate("20.1.2026 8:00"))
        }
    }

    /// Issue 42: while a registration the student is waiting for opens within the hour, the terms
    /// are read every 5 minutes; otherwise only the hourly job reads them.
    @Test func theTermsAreReadEveryFiveMinutesWhileARegistrationIsAboutToOpen() async throws {
        let f = try await STAGFixture.start()   // 2026-01-01T00:00:00Z
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            _ = try await f.host.call("refresh")
            let quiet = f.emulator.requestCount
            try await f.host.advanceClock(by: 10 * 60)
            #expect(f.emulator.requestCount == quiet, "no term opens soon: nothing read before the hourly job")

            f.emulator.addTerm(EmulatorTerm(id: 2000020, department: "KMI", subject: "ALG", start: STAGEmulator.pragueDate("10.2.2026 9:00"),
                                            room: "355", limit: 5, registerFrom: Date(timeIntervalSince1970: 1_767_225_600 + 40 * 60)))
            _ = try await f.host.call("refresh")   // 00:10: it opens at 00:40
            let before = f.emulator.requestCount
            try await f.host.advanceClock(by: 5 * 60)
            #expect(f.emulator.requestCount > before, "read again 5 minutes later")
            let after = f.emulator.requestCount
            try await f.host.advanceClock(by: 5 * 60)
            #expect(f.emulator.requestCount > after, "and again")
        }
    }

    @Test func classRemindersCoverTheNextSevenDaysWhenSwitchedOn() async throws {
        let f = try await STAGFixture.start(clock: STAGEmulator.pragueDate("15.2.2026 13:00"))  // a Sunday
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            _ = try await f.host.call("notifications-configure", ["classBefore": ["enabled": true, "leadMinutes": 30]])
            _ = try await f.host.call("refresh")
            let classes = try pending(f).filter { $0.key.hasPrefix("stag:classBefore:") }
            // Monday's PRG lecture at 9:20 and Tuesday's even-week ALG exercise at 13:00 (the odd-week PRG one is off).
            #expect(classes.keys.sorted() == ["stag:classBefore:2026-02-16T09:20/KMI/PRG", "stag:classBefore:2026-02-17T13:00/KMI/ALG"])
            #expect(classes["stag:classBefore:2026-02-16T09:20/KMI/PRG"] == STAGEmulator.pragueDate("16.2.2026 8:50"))
            // The kind of class in the reader's words, not IS/STAG's Czech name or its code ("Př", "Cv").
            let requests = Dictionary(uniqueKeysWithValues: try f.host.pendingNotifications().map { ($0.request.key, $0.request) })
            let lecture = try #require(requests["stag:classBefore:2026-02-16T09:20/KMI/PRG"])
            #expect(lecture.message?.key == "notify.lecture" && lecture.body == "Lecture, room UC 355", "\(lecture.body)")
            let practical = try #require(requests["stag:classBefore:2026-02-17T13:00/KMI/ALG"])
            #expect(practical.message?.key == "notify.practical" && practical.body == "Practical class, room UC 202", "\(practical.body)")
        }
    }

    /// Issue 42 (spec §7.1 (j)): a note with a day is a reminder, the morning before at 8:00 by
    /// default; saving the note again moves it, the lead changes it, deleting the note cancels it,
    /// and it is delivered on the virtual clock with the note's title and day for the reader's own words.
    @Test func aNoteWithADayIsRemindedTheMorningBeforeAndFollowsTheNote() async throws {
        let f = try await STAGFixture.start()   // 2026-01-01T00:00:00Z
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            let saved = try await f.host.call("note-save", ["title": "Odevzdat úkol 3", "subject": "KMI/PRG", "day": "2026-01-10"])
            let id = try #require(saved["id"]?.stringValue)
            let key = "stag:noteDue:\(id)"
            #expect(try pending(f)[key] == STAGEmulator.pragueDate("9.1.2026 8:00"))
            let request = try #require(try f.host.pendingNotifications().first { $0.request.key == key }?.request)
            #expect(request.message?.key == "notify.noteDue" && request.message?.values["day"] == .day("2026-01-10"))
            #expect(request.title == "Note due: Odevzdat úkol 3" && request.body == "Due Sat 10 Jan", "\(request.body)")

            _ = try await f.host.call("note-save", ["id": .string(id), "day": "2026-01-12"])
            #expect(try pending(f)[key] == STAGEmulator.pragueDate("11.1.2026 8:00"))
            _ = try await f.host.call("notifications-configure", ["noteDue": ["leadMinutes": 0]])
            #expect(try pending(f)[key] == STAGEmulator.pragueDate("12.1.2026 8:00"), "on the day itself")
            // A note without a day has nothing to remind of.
            _ = try await f.host.call("note-save", ["title": "Knihy z knihovny"])
            #expect(try pending(f).keys.filter { $0.hasPrefix("stag:noteDue:") } == [key])

            _ = try await f.host.advanceClock(by: STAGEmulator.pragueDate("12.1.2026 8:01").timeIntervalSince(Date(timeIntervalSince1970: 1_767_225_600)))
            let delivered = try f.host.deliveredNotifications().filter { $0.key == key }
            #expect(delivered.count == 1 && delivered.first?.title == "Note due: Odevzdat úkol 3")

            let second = try await f.host.call("note-save", ["title": "Zápočet", "day": "2026-01-20"])
            let secondKey = "stag:noteDue:\(try #require(second["id"]?.stringValue))"
            #expect(try pending(f)[secondKey] != nil)
            _ = try await f.host.call("note-delete", ["id": second["id"] ?? .null])
            #expect(try pending(f)[secondKey] == nil, "a deleted note is not reminded of")
        }
    }

    /// Each kind `notifications-status` lists is a switch on the page, so the manifest's input
    /// schema of `notifications-configure` must take it (it refused `loginExpired` before).
    @Test func everyKindTheStatusListsCanBeSwitchedThroughTheManifestsSchema() async throws {
        let f = try await STAGFixture.start()
        try await withCleanup({ await f.stop() }) {
            try await f.login()
            let kinds = try #require(try await f.host.call("notifications-status")["settings"]?.objectValue?.keys.sorted())
            #expect(kinds.contains("noteDue") && kinds.contains("loginExpired"))
            for kind in kinds {
                let answer = try await f.host.call("notifications-configure", [kind: ["enabled": false]])
                #expect(answer["settings"]?[kind]?["enabled"] == false, "\(kind)")
            }
        }
    }
}
