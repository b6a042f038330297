import Foundation
import Testing
import TesseraIsolation
import TesseraSDK

/// What crosses the process tier's socket keeps its meaning: a notification for a space's other
/// members must not arrive as one for the user alone.
@Suite struct IsolationWireTests {
    @Test(arguments: [NotificationRecipient.user, .space("5d0c7a4e-0000-4000-8000-000000000001"), .spaceOthers("5d0c7a4e-0000-4000-8000-000000000002")])
    func everyRecipientCrossesTheWireAsItIs(recipient: NotificationRecipient) throws {
        let request = NotificationRequest(key: "k", title: "SOS", body: "Ada needs help", recipient: recipient,
                                          schedule: .at(Date(timeIntervalSince1970: 1_772_438_400)))
        #expect(try NotificationRequest(wire: request.wire) == request)
    }

    @Test func aPriorityAndAMessageCrossTheWireAndAnUnknownPriorityIsRefused() throws {
        let at = Date(timeIntervalSince1970: 1_772_438_400.25)
        let request = NotificationRequest(key: "k", title: "SOS", body: "Ada needs help",
                                          message: NotificationMessage("notify.alert.sos", ["name": .text("Ada"), "at": .instant(at), "far": .meters(850)]),
                                          priority: .critical, schedule: .at(at))
        #expect(try NotificationRequest(wire: request.wire) == request)
        let plain = NotificationRequest(key: "k", title: "t", body: "b", schedule: .at(at))
        #expect(plain.wire["priority"] == nil && plain.wire["message"] == nil, "a 1.7 peer reads the frame it always did")
        guard case .object(var members) = request.wire else { Issue.record("a request's wire form is an object"); return }
        members["priority"] = "loud"
        #expect(throws: WireFormatError.self) { try NotificationRequest(wire: .object(members)) }
    }

    @Test func aRecipientItCannotReadIsRefusedNotReadAsTheUser() throws {
        guard case .object(var members) = NotificationRequest(key: "k", title: "t", body: "b", schedule: .at(Date(timeIntervalSince1970: 0))).wire else {
            Issue.record("a request's wire form is an object")
            return
        }
        members["recipient"] = ["guardians": "x"]
        #expect(throws: WireFormatError.self) { try NotificationRequest(wire: .object(members)) }
    }
}
