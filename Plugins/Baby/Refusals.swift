import Foundation
import TesseraSDK

/// Telling the person when the hub refused a change this device made (issue 41, defect 9). The
/// host has already taken the change back (the row shows what the child's diary holds without it,
/// `RemoteChanges.refused`), so without a word the parent would see a stopped timer run again or a
/// new entry vanish. One notification per child and round says so, the reason in words, and the
/// `changes-refused` event tells other modules.
extension Diary {
    /// Why the hub refused, as the notification's message key: one sentence per reason a parent
    /// can act on, and one for the rest.
    static func refusalMessage(_ reasons: Set<String>) -> String {
        // The clock first: it refuses every change the device makes until its time is set right.
        if reasons.contains("clock_ahead") { return "notify.refusedClock" }
        if reasons.contains("read_only") { return "notify.refusedReadOnly" }
        if reasons.contains("not_row_creator") { return "notify.refusedNotOwn" }
        if reasons.contains("table_read_only") { return "notify.refusedRole" }
        return "notify.refused"
    }

    /// The Czech text a client without the message catalogue shows, by message key.
    static let refusalCzech: [String: String] = [
        "notify.refusedClock": "Hodiny tohoto zařízení jdou napřed. Nastavte správný čas a změnu zadejte znovu.",
        "notify.refusedReadOnly": "Deník můžete jen prohlížet.",
        "notify.refusedNotOwn": "Jako pečující osoba měníte jen záznamy, které jste zapsali.",
        "notify.refusedRole": "Tuto část deníku vaše role měnit nemůže.",
        "notify.refused": "Server sdílení změnu nepřijal.",
    ]

    /// Tells the person of the refused changes, per child; a row already gone (a refused new
    /// entry, taken back) is told of without the child's name.
    func tellRefused(_ refused: [RemoteChanges.Refusal]) async throws {
        guard !refused.isEmpty else { return }
        var reasonsByChild: [String: Set<String>] = [:]
        for refusal in refused {
            reasonsByChild[try await childOf(table: refusal.table, row: refusal.id) ?? "", default: []].insert(refusal.reason)
        }
        let now = clock.now()
        for (childID, reasons) in reasonsByChild.sorted(by: { $0.key < $1.key }) {
            let key = Self.refusalMessage(reasons)
            let reason = reasons.contains("clock_ahead") ? "clock_ahead" : reasons.sorted().first ?? ""
            var payload: [String: JSONValue] = ["reason": .string(reason)]
            if !childID.isEmpty { payload["childId"] = .string(childID) }
            try await publish(BabyEvents.changesRefused, .object(payload))
            guard let notifications else { continue }
            let child = childID.isEmpty ? "" : try await childName(childID)
            let title = child.isEmpty ? "Deník miminka: změna nebyla uložena" : "\(child): změna nebyla uložena"
            try await notifications.schedule(NotificationRequest(
                key: "baby-refused-\(childID.isEmpty ? "diary" : childID)-\(Int64(now.timeIntervalSince1970 * 1000))",
                title: title, body: Self.refusalCzech[key] ?? "",
                message: NotificationMessage(child.isEmpty ? key + "Diary" : key, child.isEmpty ? [:] : ["child": .text(child)]),
                priority: .timeSensitive, payload: .object(payload), schedule: .at(now)))
        }
    }

    /// The child a row of the diary belongs to, if the row is still here.
    private func childOf(table: String, row: String) async throws -> String? {
        switch table {
        case "children": return try await query("SELECT id FROM children WHERE id = ?", [.text(row)]).first?["id"].text
        case "health_cards", "health_items", "records", "record_photos", "contacts", "access", "care":
            return try await query("SELECT child_id FROM \(table) WHERE id = ?", [.text(row)]).first?["child_id"].text
        default: return nil
        }
    }
}
