import Foundation
import TesseraSDK

/// The reminders, through the notifications capability (the thesis's server-sent F18 replaced by
/// schedules the host keeps): the daily diary reminder at the participant's time, skipped on a day
/// that already has a stress record; "week N is open" at the moment it unlocks; and the study's
/// last day approaching (a week and a day before, at 09:00). ``reschedule()`` derives all of them
/// from the records after every change, under fixed keys, so a changed time zone, delay or
/// deadline moves them and nothing is ever doubled.
extension Study {
    static let diaryKey = "diary-daily"
    static let deadlineWarnings = [("deadline-7", 7), ("deadline-1", 1)]

    func reschedule() async throws {
        guard let notifications else { return }
        let s = try await snapshot()
        guard s.state == .active else { return try await cancelEveryReminder() }
        let programme = programme(s), calendar = calendar(s), now = clock.now(), language = s.settings.language
        if let time = s.settings.diaryReminder, let (hour, minute) = Self.timeOfDay(time) {
            let recordedToday = try await hasStressRecord(on: calendar.day(now))
            let from = recordedToday ? calendar.adding(days: 1, to: calendar.startOfDay(now)) : now
            try await notifications.schedule(NotificationRequest(
                key: Self.diaryKey, title: Self.text("diary.title", language), body: Self.text("diary.body", language),
                message: NotificationMessage("notify.diary"), priority: .normal, payload: ["open": "diary"],
                schedule: .recurring(rule: "FREQ=DAILY;BYHOUR=\(hour);BYMINUTE=\(minute)", startingAt: from, timeZone: calendar.timeZone)))
        } else {
            try await notifications.cancel(key: Self.diaryKey)
        }
        for week in programme.weeks.dropFirst() {
            let key = "week-open-\(week.order)"
            if week.reason == .waitingUntil, let opens = week.startDate, opens > now {
                let name = s.content.programs[week.order].name.text(language)
                try await notifications.schedule(NotificationRequest(
                    key: key, title: Self.text("week.title", language, ["n": String(week.order + 1)]), body: name,
                    message: NotificationMessage("notify.weekOpen", ["week": .number(Double(week.order + 1)), "name": .text(name)]), priority: .normal,
                    payload: ["open": "programme", "order": .integer(Int64(week.order))], schedule: .at(opens)))
            } else {
                try await notifications.cancel(key: key)
            }
        }
        for (key, daysBefore) in Self.deadlineWarnings {
            if !programme.finished, let lastDay = programme.lastDay, let nine = calendar.instant(day: lastDay, hour: 9),
               case let at = calendar.adding(days: -daysBefore, to: nine), at > now {
                try await notifications.schedule(NotificationRequest(
                    key: key, title: Self.text("deadline.title", language), body: Self.text("deadline.body", language, ["days": String(daysBefore), "day": lastDay]),
                    // The day-before warning is the last chance to finish what is missing.
                    message: NotificationMessage("notify.deadline", ["count": .number(Double(daysBefore)), "lastDay": .day(lastDay)]),
                    priority: daysBefore == 1 ? .timeSensitive : .normal,
                    payload: ["open": "programme"], schedule: .at(at)))
            } else {
                try await notifications.cancel(key: key)
            }
        }
    }

    /// Cancels every notification and timer of the module (the account was cancelled).
    func cancelEveryReminder() async throws {
        if let notifications {
            for pending in try await notifications.pending() { try await notifications.cancel(key: pending.request.key) }
        }
        for timer in try await clock.pendingTimers() { try await clock.cancelTimer(key: timer.key) }
    }

    struct ReminderStatus: Encodable, Sendable { var diaryReminder: String?; var pending: [String: String] }

    func reminderStatus() async throws -> ReminderStatus {
        let s = try await activeSnapshot()
        var pending: [String: String] = [:]
        for item in try await notifications?.pending() ?? [] { pending[item.request.key] = item.nextAt.iso }
        return ReminderStatus(diaryReminder: s.settings.diaryReminder, pending: pending)
    }

    /// The text under `key` in `language`, with `{name}` placeholders filled in.
    static func text(_ key: String, _ language: String, _ values: [String: String] = [:]) -> String {
        var text = (language == "en" ? english : czech)[key] ?? key
        for (name, value) in values { text = text.replacingOccurrences(of: "{\(name)}", with: value) }
        return text
    }

    private static let czech = [
        "diary.title": "Jak se dnes máš?", "diary.body": "Zapiš si do deníku, jak se cítíš.",
        "week.title": "Otevřel se týden {n}", "deadline.title": "Program brzy končí",
        "deadline.body": "Zbývá {days} d. (do {day}). Dokonči, co ti chybí.",
        "exam.title": "Zítra tě čeká zkouška", "exam.relax": "{subject}: zkus dnes večer krátkou relaxaci a jdi brzy spát.",
        "exam.read": "{subject}: v knihovně najdeš, co pomáhá večer před zkouškou.",
    ]

    private static let english = [
        "diary.title": "How are you today?", "diary.body": "Write in your diary how you feel.",
        "week.title": "Week {n} is open", "deadline.title": "The programme ends soon",
        "deadline.body": "{days} day(s) left (until {day}). Finish what is missing.",
        "exam.title": "An exam tomorrow", "exam.relax": "{subject}: try a short relaxation this evening and get to bed early.",
        "exam.read": "{subject}: the library has what helps the evening before an exam.",
    ]
}
