import Foundation
import TesseraSDK

/// Safe travel (issue 21; specs/safe-travel.md), the port of the thesis's Safie: guardians, the
/// PIN, the SOS button, check-ins and trips with their monitors, every deadline a host timer so
/// that it survives restarts and can be kept by a watching host as well. docs/safetravel.md lists
/// every operation, state machine and threshold.
package final class SafeTravelPlugin: Plugin {
    package init() {}

    package var migrations: [StorageMigration] { Schema.migrations }

    package func start(context: PluginContext) async throws {
        let travel = Travel(storage: try context.capability(.storage), clock: try context.capability(.clock),
                            notifications: context.isGranted(.notifications) ? try context.capability(.notifications) : nil,
                            spaces: context.isGranted(.sync) ? try context.capability(.sync).spaces : nil,
                            files: context.isGranted(.files) ? try context.capability(.files) : nil,
                            config: TravelConfig(context.config), log: context.log)
        let serial = Serial()
        let ops = Operations(context: context, serial: serial)
        registerAccount(ops, travel)
        registerSOS(ops, travel)
        registerCheckins(ops, travel)
        registerTrips(ops, travel)
        registerTimers(context, serial, travel)
        context.onLocationFix { fix in try await serial.run { try await travel.feed(fix) } }
        context.onRemoteChanges { changes in try await serial.run { try await travel.remoteChanged(changes) } }
        // Recovery: an unfinished trip, SOS or check-in request gets its deadlines back.
        try await serial.run { try await travel.rearmAll() }
        try await serial.run { try await travel.startWatching() }
        try await serial.run { try await travel.startPurging() }
    }

    private func registerAccount(_ ops: Operations, _ t: Travel) {
        ops.change("account-setup", Travel.SetupInput.self) { try await t.setUp($0) }
        ops.read("account-state", Empty.self) { _ in try await t.accountState() }
        ops.change("pin-change", Travel.PINChange.self) { try await t.changePIN($0) }
        ops.change("guardian-add", Travel.UsernameInput.self) { try await t.addGuardian($0) }
        ops.change("guardian-requests", Empty.self) { _ in try await t.guardianRequests() }
        ops.change("guardian-accept", Travel.RequestInput.self) { try await t.acceptGuardian($0) }
        ops.change("guardian-decline", Travel.RequestInput.self) { try await t.declineGuardian($0) }
        ops.change("guardian-remove", Travel.UsernameInput.self) { try await t.removeGuardian($0) }
        ops.change("guardians", Empty.self) { _ in try await t.guardians() }
        ops.change("position-report", Travel.PositionInput.self) { try await t.report($0) }
        ops.read("alerts", Empty.self) { _ in try await t.alerts() }
        ops.change("alert-acknowledge", Travel.AckInput.self) { try await t.acknowledge($0) }
    }

    private func registerSOS(_ ops: Operations, _ t: Travel) {
        ops.change("sos-touch-down", Empty.self) { _ in try await t.touchDown() }
        ops.change("sos-touch-up", Empty.self) { _ in try await t.touchUp() }
        ops.change("sos-enter-pin", Travel.PINInput.self) { try await t.enterSOSPIN($0) }
        ops.change("sos-alert-now", Empty.self) { _ in try await t.alertNow() }
        ops.read("sos-status", Travel.SOSQuery.self) { try await t.sosDetail($0) }
        ops.read("sos-history", Empty.self) { _ in try await t.sosHistory() }
        ops.change("sos-delete", Travel.DeleteSOSInput.self) { try await t.deleteSOSNow($0) }
    }

    private func registerCheckins(_ ops: Operations, _ t: Travel) {
        ops.change("checkin-request", Travel.CheckinRequestInput.self) { try await t.requestCheckin($0, periodic: false) }
        ops.change("checkin-request-periodic", Travel.CheckinRequestInput.self) { try await t.requestCheckin($0, periodic: true) }
        ops.change("checkin-cancel", Travel.CancelInput.self) { try await t.cancelCheckins($0) }
        ops.change("checkin-confirm", Travel.ConfirmInput.self) { try await t.confirmCheckin($0) }
        ops.read("checkins", Empty.self) { _ in try await t.checkins() }
    }

    private func registerTrips(_ ops: Operations, _ t: Travel) {
        ops.change("trip-start", Travel.TripInput.self) { try await t.startTrip($0) }
        ops.change("trip-message", Travel.ActivityInput.self) { try await t.addMessage($0) }
        ops.change("trip-photo", Travel.UploadedPhoto.self) { try await t.addUploadedPhoto($0) }
        ops.change("trip-photo-put", Travel.InlinePhoto.self) { try await t.addInlinePhoto($0) }
        ops.read("trip-photo-get", Travel.PhotoAddress.self) { try await t.photoForDownload($0) }
        ops.change("trip-quick-action", Travel.ActivityInput.self) { try await t.addQuickAction($0) }
        ops.change("trip-next-planned", Travel.ActivityInput.self) { try await t.takeNextPlanned($0) }
        ops.change("trip-update-eta", Travel.ETAInput.self) { try await t.updateETA($0) }
        ops.change("trip-acknowledge", Travel.PINTripInput.self) { try await t.acknowledgeTrip($0) }
        ops.change("trip-end", Travel.PINTripInput.self) { try await t.endTrip($0) }
        ops.read("trip-status", Travel.TripQuery.self) { try await t.tripStatus($0) }
        ops.read("trips", Empty.self) { _ in try await t.trips() }
        ops.read("trip-activities", Travel.TripIDInput.self) { try await t.activities($0) }
        ops.read("destinations", Empty.self) { _ in try await t.destinations() }
        ops.change("destination-favourite", Travel.DestinationIDInput.self) { try await t.toggleFavourite($0) }
        ops.change("live-link", Travel.TripQuery.self) { try await t.newLiveLink($0) }
        ops.change("live-link-revoke", Travel.TripQuery.self) { try await t.revokeLiveLinks($0) }
        ops.read("live-view", Travel.TokenInput.self) { try await t.liveView($0) }
        ops.read("live-photo", Travel.TokenInput.self) { try await t.livePhoto($0) }
        ops.change("trip-delete", Travel.DeleteTripInput.self) { try await t.deleteTripNow($0) }
        ops.change("place-add", Travel.PlaceInput.self) { try await t.addPlace($0) }
        ops.read("places", Empty.self) { _ in try await t.places() }
        ops.change("place-remove", Travel.PlaceIDInput.self) { try await t.removePlace($0) }
    }

    private func registerTimers(_ context: PluginContext, _ serial: Serial, _ t: Travel) {
        let handlers: [(String, @Sendable (TimerFiring) async throws -> Void)] = [
            (Travel.holdTimer, t.holdReached), (Travel.sampleTimer, t.sampleDue), (Travel.silenceTimer, t.silenceDue),
            (Travel.deadlineTimer, t.deadlineDue), (Travel.slotTimer, t.slotDue), (Travel.missTimer, t.missDue),
            (Travel.etaTimer, t.etaDue), (Travel.overdueTimer, t.overdueDue), (Travel.tripSilenceTimer, t.tripSilenceDue),
            (Travel.offRoutePromptTimer, t.offRoutePromptDue), (Travel.offRouteAlertTimer, t.offRouteAlertDue),
            (Travel.repeatTimer, t.repeatAlert), (Travel.watchTimer, t.watchInvitations), (Travel.purgeTimer, t.purgeDue),
            (Travel.pairingTimer, t.pairingPoll),
        ]
        for (name, handler) in handlers {
            context.onTimer(name) { firing in try await serial.run { try await handler(firing) } }
        }
    }
}

/// Registers operations: reads as they come, changes one at a time (Serial.swift says why).
struct Operations {
    let context: PluginContext
    let serial: Serial

    func read<Input: Decodable & Sendable>(_ name: String, _ input: Input.Type, _ body: @escaping @Sendable (Input) async throws -> JSONValue) {
        context.onOperation(name, input: input) { value, _ in try await body(value) }
    }

    func change<Input: Decodable & Sendable>(_ name: String, _ input: Input.Type, _ body: @escaping @Sendable (Input) async throws -> JSONValue) {
        let serial = serial
        context.onOperation(name, input: input) { value, _ in try await serial.run { try await body(value) } }
    }
}

struct Empty: Decodable, Sendable {}
