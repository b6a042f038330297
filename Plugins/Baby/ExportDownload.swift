import Foundation
import TesseraSDK

/// UC32 in a browser: the PDF `export` wrote is handed back to the one who asked for it, through
/// the edge's download route (`GET /v1/plugins/cz.tessera.baby/ops/export-download?address=…`, the
/// manifest's `"file": "download"`: bytes with ETag and ranges, the caller's token in the
/// `Authorization` header). Each PDF export is a row of the local `exports` table (never synced):
/// its address, the child, and the principal that asked. A download is refused unless that row
/// is the caller's and the caller's person may still export the child (a parent whose access was
/// revoked meanwhile gets the refusal). The PDF is not linked to any record, so the host's
/// collector removes it after its grace (a day, docs/files.md); its row then goes at the next
/// export, and the download says to export again.
extension Diary {
    struct ExportDownload: Decodable, Sendable { var address: String }

    /// How long an export's row is kept: the files' collector grace, and a day more.
    static let exportRowLifetime: TimeInterval = 2 * 86_400

    /// Remembers that `principal` exported `address` for `childID`, and forgets rows past their lifetime.
    func rememberExport(address: String, childID: String, principal: String) async throws {
        let stale = clock.now().addingTimeInterval(-Self.exportRowLifetime).formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
        let old = try await query("SELECT id FROM exports WHERE created_at < ?", [.text(stale)])
        try await storage.write { batch in
            for row in old { batch.delete("exports", id: row["id"].text ?? "") }
            batch.put("exports", id: "\(address) \(principal)", ["address": .text(address), "child_id": .text(childID),
                                                                 "principal": .text(principal), "created_at": .text(stamp())])
        }
    }

    /// The address of an export `principal` made, for the edge to serve.
    func exportForDownload(_ address: String, by principal: String) async throws -> JSONValue {
        guard let row = try await query("SELECT child_id FROM exports WHERE address = ? AND principal = ?", [.text(address), .text(principal)]).first else {
            throw PluginError(.notFound, "address: no export \(address) of yours here: export the PDF first", field: "$.address", reason: "unknown_export")
        }
        try await require(.export, on: row["child_id"].text ?? "")
        guard let files else { throw BabyError.unprocessable("exporting a PDF needs the files capability", code: "files_not_granted") }
        do {
            _ = try await files.stat(address)
        } catch let error as PluginError where error.code == .notFound {
            throw PluginError(.notFound, "address: the export \(address) is no longer kept (a day): export the PDF again", field: "$.address", reason: "export_expired")
        }
        return ["address": .string(address)]
    }
}
