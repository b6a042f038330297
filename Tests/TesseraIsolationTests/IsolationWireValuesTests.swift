import Foundation
import Testing
import TesseraIsolation
import TesseraSDK

/// The values of files, HTTP, location and sync cross the process tier's socket unchanged, and a
/// malformed one is refused by name rather than read as something else.
@Suite struct IsolationWireValuesTests {
    @Test func fileHTTPAndLocationValuesRoundTrip() throws {
        let file = FileDescriptor(address: String(repeating: "ab", count: 32), size: 1234, mediaType: "image/png")
        #expect(try FileDescriptor(wire: file.wire) == file)
        let request = OutboundRequest(method: "POST", url: "https://fioapi.fio.cz/v1/x", headers: ["A": "b"], body: [0, 255, 10],
                                      timeout: .milliseconds(2500))
        #expect(try OutboundRequest(wire: request.wire) == request)
        let response = OutboundResponse(status: 409, headers: ["Retry-After": "30"], body: Array("busy".utf8))
        #expect(try OutboundResponse(wire: response.wire) == response)
        let fix = LocationFix(latitude: 50.0870123456789, longitude: 14.4208, accuracy: 4.5, battery: 77,
                              timestamp: Date(timeIntervalSinceReferenceDate: 800_000_000.123456), deviceID: "phone")
        #expect(try LocationFix(wire: fix.wire) == fix)
    }

    @Test func syncValuesRoundTripWithTheirPluginRoles() throws {
        let space = SyncSpace(id: "s1", name: "Ema", role: .editor, pluginRole: "guardian", registered: false)
        #expect(try SyncSpace(wire: space.wire) == space)
        let invitation = SpaceInvitation(id: "i1", space: "s1", spaceName: "Ema", role: .viewer, pluginRole: "nanny", invitee: nil,
                                         inviter: "ada", expiresAt: Date(timeIntervalSinceReferenceDate: 1e9), code: "ABCD-1234")
        let membership = SpaceMembership(members: [SpaceMember(person: "bob", name: "Bob", role: .owner, pluginRole: nil)], invitations: [invitation])
        #expect(try SpaceMembership(wire: membership.wire) == membership)
        let conflict = CellConflict(table: "records", id: "r1", column: "note", current: .text("a"), others: [.real(1.5), .null])
        #expect(try CellConflict(wire: conflict.wire) == conflict)
        let changes = RemoteChanges(rows: [.init(table: "records", id: "r1", deleted: true)],
                                    refused: [.init(table: "children", id: "c1", column: "name", reason: "table_read_only")], droppedSpaces: ["s2"])
        #expect(try RemoteChanges(wire: changes.wire) == changes)
    }

    /// SDK 1.6's mail: every byte value of the attachment, and a message without one.
    @Test func hubMailValuesRoundTrip() throws {
        let message = HubMailMessage(to: "doctor@example.org", subject: "Ema: baby diary", text: "Příloha.\n",
                                     attachment: HubMailAttachment(fileName: "Ema-diary.pdf", mediaType: "application/pdf", bytes: (0...255).map(UInt8.init)))
        #expect(try HubMailMessage(wire: message.wire) == message)
        let plain = HubMailMessage(to: "a@example.org", subject: "s", text: "")
        #expect(try HubMailMessage(wire: plain.wire) == plain)
        let receipt = HubMailReceipt(id: "m1", to: "doctor@example.org", queuedAt: Date(timeIntervalSinceReferenceDate: 800_000_000.5), remainingToday: 19)
        #expect(try HubMailReceipt(wire: receipt.wire) == receipt)
        #expect(throws: WireFormatError.self) {
            try HubMailMessage(wire: ["to": "a@b.c", "subject": "s", "text": "", "attachment": ["fileName": "x.pdf", "mediaType": "application/pdf", "content": "not base64!"]])
        }
        #expect(throws: WireFormatError.self) { try HubMailMessage(wire: ["subject": "s", "text": ""]) }
    }

    @Test func malformedValuesAreRefusedByName() {
        #expect(throws: WireFormatError.self) { try FileDescriptor(wire: ["address": "x"]) }
        #expect(throws: WireFormatError.self) { try OutboundResponse(wire: ["status": 200, "body": "not base64!"]) }
        #expect(throws: WireFormatError.self) { try LocationFix(wire: ["latitude": 1, "timestamp": 0, "deviceID": "d"]) }
        #expect(throws: WireFormatError.self) { try SyncSpace(wire: ["id": "s", "name": "n"]) }
    }
}
