import Foundation
import Synchronization
import TesseraSDK

/// The capability objects a plugin in the process tier receives: the SDK's protocols, each call
/// forwarded to the host, where the real object built by the capability's provider answers it
/// with the grants checked there (``CapabilityForwarding`` names the methods).
///
/// A capability with no proxy here is not handed to the plugin in the process tier; the plugin
/// sees it as not granted (docs/isolation.md lists them).
enum ChildCapabilities {
    /// The proxies for the granted capability names the host sent.
    /// `httpHosts` is the HTTP grant's host list (the SDK reads it synchronously); `hostTime` the
    /// host's time when it started the plugin.
    static func granted(_ names: [String], peer: PeerConnection, httpHosts: [String] = [], hostTime: Date? = nil) -> [GrantedCapability] {
        names.compactMap { name in
            switch name {
            case "storage": return GrantedCapability(.storage, StorageProxy(peer: peer) as any PluginStorage)
            case "clock": return GrantedCapability(.clock, ClockProxy(peer: peer, hostTime: hostTime) as any HostClock)
            case "notifications": return GrantedCapability(.notifications, NotificationsProxy(peer: peer) as any PluginNotifications)
            case "events": return GrantedCapability(.events, EventsProxy(peer: peer) as any PluginEvents)
            case "secrets": return GrantedCapability(.secrets, SecretsProxy(peer: peer) as any PluginSecrets)
            case "files": return GrantedCapability(.files, FilesProxy(peer: peer) as any PluginFiles)
            case "http": return GrantedCapability(.http, HTTPClientProxy(peer: peer, grantedHosts: httpHosts) as any PluginHTTPClient)
            case "location": return GrantedCapability(.location, LocationFeedProxy(peer: peer) as any PluginLocationFeed)
            case "sync": return GrantedCapability(.sync, SyncProxy(peer: peer) as any PluginSync)
            default: return nil
            }
        }
    }
}

/// The names of the child's capability calls, as the host's ``CapabilityForwarding`` answers them.
public enum CapabilityMethod {
    public static let storageWrite = "storage.write", storageQuery = "storage.query"
    public static let clockNow = "clock.now", clockSleep = "clock.sleep", clockSchedule = "clock.schedule"
    public static let clockCancel = "clock.cancelTimer", clockPending = "clock.pendingTimers"
    public static let notificationsSchedule = "notifications.schedule", notificationsCancel = "notifications.cancel"
    public static let notificationsPending = "notifications.pending"
    public static let eventsPublish = "events.publish"
    public static let secretsGet = "secrets.get", secretsStore = "secrets.store", secretsRemove = "secrets.remove"
    public static let secretsNames = "secrets.names"
    public static let filesWriterOpen = "files.writer.open", filesWriterWrite = "files.writer.write"
    public static let filesWriterFinish = "files.writer.finish", filesWriterCancel = "files.writer.cancel"
    public static let filesStat = "files.stat", filesRead = "files.read", filesLink = "files.link"
    public static let filesUnlink = "files.unlink", filesLinks = "files.links"
    public static let httpSend = "http.send"
    public static let locationLatest = "location.latest"
    public static let syncConflicts = "sync.conflicts", syncResolve = "sync.resolveConflict"
    /// ``PluginSync/sendMail(_:)``: the message's fields, the attachment's bytes in base64.
    public static let syncMail = "sync.mail"
    /// The prefix of the spaces calls: `spaces.create`, `spaces.invite`, … (``SpacesProxy``).
    public static let spaces = "spaces."
    public static let log = "log"
}

struct StorageProxy: PluginStorage {
    let peer: PeerConnection
    func write(_ batch: WriteBatch) async throws {
        _ = try await peer.call(CapabilityMethod.storageWrite, batch.wire)
    }
    func query(_ sql: String, _ parameters: [SQLValue]) async throws -> [Row] {
        let rows = try await peer.call(CapabilityMethod.storageQuery, ["sql": .string(sql), "parameters": .array(parameters.map(\.wire))])
        return try (rows.arrayValue ?? []).map(Row.init(wire:))
    }
}

final class ClockProxy: HostClock, Sendable {
    let peer: PeerConnection
    /// The host's last answer (at first, its time when it started the plugin): what `now()` says
    /// when the host does not answer.
    private let lastAnswer: Mutex<Date?>

    init(peer: PeerConnection, hostTime: Date?) {
        self.peer = peer
        lastAnswer = Mutex(hostTime)
    }

    /// Synchronous in the SDK, so it blocks this thread for one round trip: the host's clock may be
    /// virtual, and only the host knows its time. The child never reads the wall clock (issue 44:
    /// under a virtual clock that is another time altogether): if the host does not answer — it
    /// refused the call (too many in flight), or the connection is gone and this process ends
    /// soon — the time is the host's last answer; with none at all, the child ends rather than
    /// invent one.
    func now() -> Date {
        do {
            let time = try Date(wire: peer.callBlocking(CapabilityMethod.clockNow))
            lastAnswer.withLock { $0 = time }
            return time
        } catch {
            if let last = lastAnswer.withLock({ $0 }) { return last }
            FileHandle.standardError.write(Data("the host did not tell the time (\(error)); ending\n".utf8))
            exit(70)  // EX_SOFTWARE: the host sees the plugin's process end
        }
    }
    func sleep(until deadline: Date) async throws {
        _ = try await peer.call(CapabilityMethod.clockSleep, deadline.wire)
    }
    func schedule(_ timer: TimerRequest) async throws {
        _ = try await peer.call(CapabilityMethod.clockSchedule, timer.wire)
    }
    func cancelTimer(key: String) async throws {
        _ = try await peer.call(CapabilityMethod.clockCancel, .string(key))
    }
    func pendingTimers() async throws -> [TimerRequest] {
        try (try await peer.call(CapabilityMethod.clockPending).arrayValue ?? []).map(TimerRequest.init(wire:))
    }
}

struct NotificationsProxy: PluginNotifications {
    let peer: PeerConnection
    func schedule(_ notification: NotificationRequest) async throws {
        _ = try await peer.call(CapabilityMethod.notificationsSchedule, notification.wire)
    }
    func cancel(key: String) async throws {
        _ = try await peer.call(CapabilityMethod.notificationsCancel, .string(key))
    }
    func pending() async throws -> [PendingNotification] {
        try (try await peer.call(CapabilityMethod.notificationsPending).arrayValue ?? []).map(PendingNotification.init(wire:))
    }
}

struct EventsProxy: PluginEvents {
    let peer: PeerConnection
    func publish(_ name: String, _ payload: JSONValue) async throws {
        _ = try await peer.call(CapabilityMethod.eventsPublish, ["name": .string(name), "payload": payload])
    }
}

struct SecretsProxy: PluginSecrets {
    let peer: PeerConnection
    func secret(named name: String) async throws -> Secret? {
        let answer = try await peer.call(CapabilityMethod.secretsGet, .string(name))
        return try answer == .null ? nil : Secret(wire: answer)
    }
    func store(_ secret: Secret, named name: String) async throws {
        _ = try await peer.call(CapabilityMethod.secretsStore, ["name": .string(name), "secret": secret.wire])
    }
    func removeSecret(named name: String) async throws {
        _ = try await peer.call(CapabilityMethod.secretsRemove, .string(name))
    }
    func secretNames() async throws -> [String] {
        (try await peer.call(CapabilityMethod.secretsNames).arrayValue ?? []).compactMap(\.stringValue)
    }
}
