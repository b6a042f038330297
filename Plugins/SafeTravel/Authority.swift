import Foundation
import TesseraSDK

/// One authority per deadline (DESIGN.md §7; docs/safetravel.md, "Who decides each alert").
///
/// Every host that holds a traveller's records computes the same deadlines from them, but only one
/// of them tells the guardians:
/// - **the watcher** (a host with `watcherName`), where the traveller's device has invited one,
///   decides every deadline of the spaces it watches, `syncGrace` after it, so that what the
///   traveller did before the deadline (a check-in, an acknowledgement, the trip's end) has reached
///   it through the hub first;
/// - **the traveller's own device** decides alone where no watcher serves its space, at the
///   deadline itself (it sees its own person's answers at once); where one does, it only prompts
///   its person, and decides a guardians' alert itself only as a fallback, `fallbackDelay` after the
///   watcher should have: when the watcher's alert row has not arrived by then (the phone is
///   offline, or the watcher is down), the phone raises the same alert, with the same id and due
///   instant, which the hub files once;
/// - **a guardian's device** shows the alerts it receives and raises none: it decides from a copy
///   that trails the traveller's by a sync round, which is how a check-in confirmed a second before
///   its deadline ended as "did not check in" on every device.
extension Travel {
    /// When this host decides a guardians' alert whose deadline is `deadline`, about `traveller`'s
    /// records; nil where it never does (a guardian's device). `synced` says whether the deadline
    /// needs the sync grace on the watcher: an SOS's PIN deadline has its own grace built in
    /// (`serverGrace`), the trip's and check-ins' deadlines do not.
    func decisionTime(_ deadline: Date, traveller: String, synced: Bool = true) async throws -> Date? {
        let grace = synced ? config.syncGrace : 0
        guard try await decides(for: traveller) else { return nil }
        if config.watcherName != nil { return deadline.addingTimeInterval(grace) }
        return try await isWatched() ? deadline.addingTimeInterval(grace + config.fallbackDelay) : deadline
    }

    /// Whether this host decides guardians' alerts about `traveller`'s records at all (the watcher,
    /// or her own device): a handler's guard against a timer armed before this rule.
    func decides(for traveller: String) async throws -> Bool {
        if config.watcherName != nil { return true }
        return try await meIfSetUp()?.username == traveller
    }

    /// The instant a guardians' alert of `deadline` is due: the same on every host that may decide
    /// it, so that their notifications share one relay key (plugin, key, due instant, recipient).
    func alertDue(_ deadline: Date, synced: Bool = true) async throws -> Date {
        guard synced else { return deadline }
        let watched = config.watcherName != nil ? true : try await isWatched()
        return watched ? deadline.addingTimeInterval(config.syncGrace) : deadline
    }

    /// Whether a watcher serves this device's travel space: the device invited one (`watcher` in its
    /// config), whether or not it has joined yet: until it has, the fallback covers the guardians.
    func isWatched() async throws -> Bool {
        guard config.watcher != nil else { return false }
        return try await row("SELECT id FROM guardians WHERE direction = 'service'") != nil
    }
}
