import Foundation
import TesseraSDK

/// Composition with the IS/STAG module, when it is enabled: the evening before an exam it knows of
/// (its `exam-upcoming` event), at 19:00 local time, suggest a short relaxation — or, before the
/// participant has reached week 2, the library's page on the evening before an exam. The module
/// works the same without it; the event is simply never delivered.
extension Study {
    static let examEvent = "cz.tessera.stag/exam-upcoming"

    /// Handles `exam-upcoming` `{termId, subject, subjectName, start, room?, registered?}`. A term
    /// the student is not registered for (`registered: false`) cancels its nudge instead.
    func examUpcoming(_ payload: JSONValue) async throws {
        guard let notifications else { return }
        let s = try await snapshot()
        guard s.state == .active, let term = payload["termId"].flatMap(Self.termKey),
              let start = payload["start"]?.stringValue.flatMap(Date.init(iso:)) else { return }
        let key = "exam-eve-\(term)"
        let calendar = calendar(s), language = s.settings.language
        guard payload["registered"]?.boolValue != false,
              let examDay = calendar.instant(day: calendar.day(start)),
              let eve = calendar.instant(day: calendar.day(calendar.adding(days: -1, to: examDay)), hour: 19),
              eve > clock.now() else { return try await notifications.cancel(key: key) }
        let subject = payload["subjectName"]?.stringValue ?? payload["subject"]?.stringValue ?? ""
        let relaxationReached = programme(s).weeks[1].state != .closed
        let body = Self.text(relaxationReached ? "exam.relax" : "exam.read", language, ["subject": subject])
        let open: JSONValue = relaxationReached ? ["open": "programme", "order": 1] : ["open": "library", "id": "L2.1"]
        let message = NotificationMessage(relaxationReached ? "notify.examRelax" : "notify.examRead", ["subject": .text(subject)])
        try await notifications.schedule(NotificationRequest(key: key, title: Self.text("exam.title", language), body: body,
                                                             message: message, priority: .normal, payload: open, schedule: .at(eve)))
    }

    private static func termKey(_ value: JSONValue) -> String? {
        if let number = value.integerValue { return String(number) }
        return value.stringValue.map { String($0.prefix(40).filter { $0.isLetter || $0.isNumber || $0 == "-" }) }
    }
}
