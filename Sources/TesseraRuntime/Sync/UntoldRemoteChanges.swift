import Foundation
import TesseraSDK

/// What sync changed for a plugin that was not active to hear it (it failed to start, or was
/// stopped): kept in `<data>/sync-peers.sqlite` and handed to the plugin's remote-changes handler
/// when it next becomes active, so it can reschedule what those rows drive (reminders, totals)
/// without reading every table.
///
/// Rounds that happen meanwhile add to it: a row's last change tells (deleted or not), refusals
/// and dropped spaces accumulate.
struct UntoldRemoteChanges: Codable, Equatable {
    struct Row: Codable, Equatable { var table: String; var id: String; var deleted: Bool }
    struct Refusal: Codable, Equatable, Hashable { var table: String; var id: String; var column: String; var reason: String }

    var rows: [Row] = []
    var refused: [Refusal] = []
    var droppedSpaces: [String] = []

    init(_ changes: RemoteChanges) {
        rows = changes.rows.map { Row(table: $0.table, id: $0.id, deleted: $0.deleted) }
        refused = changes.refused.map { Refusal(table: $0.table, id: $0.id, column: $0.column, reason: $0.reason) }
        droppedSpaces = changes.droppedSpaces
    }

    /// These changes, then `later` on top.
    func merged(with later: UntoldRemoteChanges) -> UntoldRemoteChanges {
        var result = self
        var index = Dictionary(rows.enumerated().map { ("\($1.table)\u{0}\($1.id)", $0) }) { first, _ in first }
        for row in later.rows {
            if let at = index["\(row.table)\u{0}\(row.id)"] { result.rows[at] = row } else {
                index["\(row.table)\u{0}\(row.id)"] = result.rows.count
                result.rows.append(row)
            }
        }
        result.refused += later.refused.filter { !refused.contains($0) }
        result.droppedSpaces += later.droppedSpaces.filter { !droppedSpaces.contains($0) }
        return result
    }

    /// As the plugin receives them.
    var remoteChanges: RemoteChanges {
        RemoteChanges(rows: rows.map { RemoteChanges.Row(table: $0.table, id: $0.id, deleted: $0.deleted) },
                      refused: refused.map { RemoteChanges.Refusal(table: $0.table, id: $0.id, column: $0.column, reason: $0.reason) },
                      droppedSpaces: droppedSpaces)
    }

    func encoded() throws -> [UInt8] { Array(try JSONEncoder().encode(self)) }

    static func decode(_ bytes: [UInt8]) throws -> UntoldRemoteChanges {
        try JSONDecoder().decode(UntoldRemoteChanges.self, from: Data(bytes))
    }
}
