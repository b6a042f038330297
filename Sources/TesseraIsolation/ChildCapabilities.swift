import Foundation
import TesseraSDK

/// The capability objects a plugin in the process tier receives: the SDK's protocols, each call
/// forwarded to the host, where the real object built by the capability's provider answers it
/// with the grants checked there. Each capability's methods and proxy are in its file of `Protocol/`.
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
