import Foundation
import TesseraSDK
import TesseraSchema

/// The operator's deployment file: the role, where data lives, which plugins run with what
/// configuration and grants, and which capability providers back them.
public struct Deployment: Sendable {
    /// The deployment's name.
    public let name: String
    /// Device (one person's data) or hub.
    public let role: Role
    /// Where the host keeps its data, if the file says (relative to the current directory).
    public let dataDirectory: String?
    /// Absolute folders searched for manifests.
    public let manifestDirectories: [String]
    /// Absolute folders searched for plugin libraries, before the tessera executable's folder.
    public let libraryPaths: [String]
    /// The clock provider.
    public let clock: ClockProvider
    /// The plugins, in file order.
    public let plugins: [PluginEntry]
    /// Where notifications are delivered (`providers.notifications`).
    public let notifications: NotificationsProvider
    /// Location sources (`providers.location`).
    public let location: LocationProvider
    /// Outbound HTTP for plugins (`providers.http`).
    public let http: HTTPProvider
    /// The hub this device syncs with (`providers.sync`), if any.
    public let sync: SyncProvider?
    /// Where a hub keeps its store (`providers.hubStore`; the embedded SQLite file by default).
    public let hubStore: HubStoreProvider
    /// The limits on files that pass through a hub (`providers.hubFiles`; docs/hub.md, "Files").
    public var hubFiles = HubFilesProvider()
    /// Past this many bytes of retired plugin code, a restart is recommended (`hotSwap.retiredBudgetMB`).
    public let retiredBudgetBytes: Int
    /// The HTTP listener.
    public let httpHost: String
    public let httpPort: Int
    /// Each token's request budgets at the HTTP listener (`http.rateLimit`).
    public let httpRateLimits: RateLimits
    /// The file it was read from.
    public let file: String
    /// A hub's outbound mail (`providers.mail`), if the deployment names a server.
    public internal(set) var mail: MailProvider? = nil
    /// Whether anyone may create an account on this hub (`hub.registration` is `open`).
    public internal(set) var hubRegistrationOpen = false
    /// The map tile server the console's pages use (`http.mapTiles`), if the deployment names one.
    public internal(set) var mapTiles: MapTiles? = nil
    /// Who may read `/metrics` (`http.metrics`).
    public internal(set) var metricsAccess = MetricsAccess.token
    /// The file's JSON as read: a reload compares it with the file's new text, setting by setting.
    public internal(set) var document: JSONValue = .null

    /// A map tile server: its URL template (`{z}/{x}/{y}`) and the attribution its terms ask for.
    public struct MapTiles: Sendable, Hashable {
        public let url: String
        public let attribution: String

        /// `scheme://host[:port]` of the template, for the pages' Content-Security-Policy (a
        /// `{s}` subdomain placeholder becomes `*.`).
        public var origin: String {
            let afterScheme = url.range(of: "://").map { url[$0.upperBound...] } ?? Substring(url)
            let authority = afterScheme.prefix { $0 != "/" }
            let scheme = url.hasPrefix("https") ? "https" : "http"
            return "\(scheme)://" + authority.replacingOccurrences(of: "{s}.", with: "*.")
        }
    }

    /// Who may read `GET /metrics`.
    public enum MetricsAccess: String, Sendable, Hashable {
        /// A token with the admin or the metrics role.
        case token
        /// Such a token, or any request from a loopback address.
        case loopback
    }

    /// The entry for a plugin id.
    public func entry(for id: String) -> PluginEntry? { plugins.first { $0.id == id } }

    public enum Role: String, Sendable { case device, hub }

    public enum ClockProvider: Sendable, Hashable {
        /// The system's real-time clock.
        case system
        /// A clock kept in the data directory that moves only when set or advanced.
        case virtual(start: Date?)
    }

    /// The notification sinks and lateness rules.
    public struct NotificationsProvider: Sendable, Hashable {
        public var inbox = true
        public var log = false
        public var webhooks: [String] = []
        public var lateAfterSeconds: Int64 = 60
        public var lateHorizonSeconds: Int64?
        public init() {}
    }

    /// The location sources besides HTTP and the CLI.
    public struct LocationProvider: Sendable, Hashable {
        /// gpsd to read from, if any.
        public var gpsd: (host: String, port: Int)? {
            get { gpsdHost.map { ($0, gpsdPort) } }
            set { gpsdHost = newValue?.host; gpsdPort = newValue?.port ?? 2947 }
        }
        var gpsdHost: String?
        var gpsdPort = 2947
        /// Fixes stamped further ahead of the host's clock than this are dropped.
        public var futureMarginSeconds: Int64 = 600
        /// An MQTT broker that OwnTracks apps publish to (`mqtt`), if any.
        public var mqtt: MQTTSource?
        public init() {}
    }

    /// An MQTT broker to subscribe to for OwnTracks messages (`providers.location.mqtt`).
    public struct MQTTSource: Sendable, Hashable {
        public var host: String
        public var port: Int
        /// `mqtts://`: TLS, checked against `caFile` or the system's roots.
        public var tls: Bool
        public var topic: String
        public var username: String?
        /// A file holding the password (absolute, or relative to the deployment file's folder).
        public var passwordFile: String?
        public var caFile: String?
        /// The client id the broker keeps the session under (default `tessera-<deployment name>`).
        public var clientID: String?
    }

    /// Outbound HTTP: where requests for real services go instead, and how large a response may be.
    public struct HTTPProvider: Sendable, Hashable {
        /// URL prefix (`scheme://host[:port]`) -> replacement, applied after the grant check.
        public var redirects: [String: String] = [:]
        /// Responses larger than this are refused.
        public var maxResponseBytes = 16 * 1_048_576
        public init() {}
    }

    /// Where a hub keeps its accounts, spaces and change logs.
    public enum HubStoreProvider: Sendable, Hashable {
        /// `<data>/hub.sqlite`: one hub process.
        case sqlite
        /// A PostgreSQL database that several hub replicas share.
        case postgresql(PostgreSQLSettings)
    }

    /// Files at a hub: where their bytes are kept (`directory`, default `<data>/hub-files`; replicas
    /// over one PostgreSQL database name one shared directory) and the operator's limits.
    public struct HubFilesProvider: Sendable, Hashable {
        public var directory: String?
        /// Each person's quota in bytes (`quotaMBPerPerson`), unlimited if `nil`.
        public var quotaBytesPerPerson: Int64?
        /// The largest single file in bytes (`maxFileMB`), unlimited if `nil`.
        public var maxFileBytes: Int64?
        public init() {}
    }

    /// How a hub reaches its PostgreSQL database. The password is read from the environment
    /// variable `passwordEnv` when the hub starts, never from the deployment file.
    public struct PostgreSQLSettings: Sendable, Hashable {
        public var host = "127.0.0.1"
        public var port = 5432
        public var user = "tessera"
        public var database = "tessera_hub"
        public var passwordEnv = "PGPASSWORD"
        /// `disable`, `prefer` or `require`.
        public var tls = "prefer"
        public init() {}
    }

    /// A hub's SMTP server (`providers.mail`): where password-reset codes and invitations go.
    public struct MailProvider: Sendable, Hashable {
        public var host: String
        /// 25 unless the file says.
        public var port = 25
        /// The sender's address.
        public var from: String
        /// The environment variables holding the SMTP user and password, if the server wants AUTH.
        public var usernameEnv: String?
        public var passwordEnv: String?
        public init(host: String, from: String) {
            self.host = host
            self.from = from
        }
    }

    /// The hub a device syncs with, and how often.
    public struct SyncProvider: Sendable, Hashable {
        /// The hub's address, without a trailing slash.
        public var hub: String
        /// Seconds between periodic rounds.
        public var everySeconds: Int64 = 900
        /// Plugins whose files are fetched right after each round (`eagerFiles`), not when first read.
        public var eagerFiles: Set<String> = []
        /// Seconds one request to the hub may wait without an answer before it fails (`timeout`):
        /// rounds, logins and a plugin's space calls. A long poll waits this much beyond its own wait.
        public var timeoutSeconds: Double = 30
        public init(hub: String) { self.hub = hub.hasSuffix("/") ? String(hub.dropLast()) : hub }
    }

    /// One plugin as the operator enabled it.
    public struct PluginEntry: Sendable {
        public let id: String
        /// The plugin versions accepted; any when absent.
        public let versions: VersionRange?
        public let enabled: Bool
        public let config: JSONValue
        /// Capability name -> permissions granted.
        public let grants: [String: JSONValue]
        /// Where in the file this entry is, for errors (`$.plugins[2]`).
        public let path: String
        /// Where the operator runs the plugin's code, if the entry says (it overrides the manifest).
        public internal(set) var isolation: Isolation? = nil
        /// Memory and CPU limits for a process-tier plugin's child (`limits`).
        public internal(set) var limits: PluginLimits? = nil
    }
}

/// Reads deployment files.
public enum DeploymentReader {
    /// The compiled deployment schema (manifests/schema/deployment.schema.json).
    public static let schema = JSONDocument.compile(EmbeddedSchemas.deployment)

    /// Reads and checks the deployment in `file`. Relative folders in it resolve against its folder.
    public static func read(file: String) throws(ManifestError) -> Deployment {
        try decode(JSONDocument.read(file: file), file: file)
    }

    /// Checks and decodes a deployment document.
    public static func decode(_ doc: JSONValue, file: String) throws(ManifestError) -> Deployment {
        try JSONDocument.check(doc, against: schema, file: file)
        let base = URL(fileURLWithPath: file).deletingLastPathComponent()
        func resolve(_ paths: JSONValue?) -> [String] {
            (paths?.arrayValue ?? []).compactMap(\.stringValue).map {
                $0.hasPrefix("/") ? $0 : base.appendingPathComponent($0).standardizedFileURL.path
            }
        }
        var clock = Deployment.ClockProvider.system
        if doc["providers"]?["clock"]?["kind"]?.stringValue == "virtual" {
            let start = doc["providers"]?["clock"]?["start"]?.stringValue.flatMap { try? Date($0, strategy: .iso8601) }
            clock = .virtual(start: start)
        }
        var plugins: [Deployment.PluginEntry] = []
        var seen: Set<String> = []
        for (i, item) in (doc["plugins"]!.arrayValue ?? []).enumerated() {
            let id = item["id"]!.stringValue!
            guard seen.insert(id).inserted else {
                throw ManifestError(file: file, path: "$.plugins[\(i)].id", expected: "each plugin once", found: "'\(id)' again")
            }
            var range: VersionRange?
            if let text = item["version"]?.stringValue {
                guard let r = VersionRange(text) else {
                    throw ManifestError(file: file, path: "$.plugins[\(i)].version",
                                        expected: "a version range such as ^1.0", found: item["version"]!.brief)
                }
                range = r
            }
            plugins.append(Deployment.PluginEntry(
                id: id, versions: range, enabled: item["enabled"]?.boolValue ?? true,
                config: item["config"] ?? .object([:]), grants: item["grants"]?.objectValue ?? [:],
                path: "$.plugins[\(i)]", isolation: item["isolation"]?.stringValue.flatMap(Isolation.init(rawValue:)),
                limits: PluginLimits(json: item["limits"])))
        }
        let manifestDirs = doc["manifestDirectories"] == nil ? [base.appendingPathComponent("..").standardizedFileURL.path]
            : resolve(doc["manifestDirectories"])
        var deployment = Deployment(
            name: doc["name"]!.stringValue!,
            role: Deployment.Role(rawValue: doc["role"]!.stringValue!)!,
            dataDirectory: doc["dataDirectory"]?.stringValue,
            manifestDirectories: manifestDirs,
            libraryPaths: resolve(doc["libraryPaths"]),
            clock: clock,
            plugins: plugins,
            notifications: notificationsProvider(doc["providers"]?["notifications"]),
            location: locationProvider(doc["providers"]?["location"], base: base),
            http: httpProvider(doc["providers"]?["http"]),
            sync: syncProvider(doc["providers"]?["sync"]),
            hubStore: hubStoreProvider(doc["providers"]?["hubStore"]),
            retiredBudgetBytes: Int((doc["hotSwap"]?["retiredBudgetMB"]?.doubleValue ?? 256) * 1_048_576),
            httpHost: doc["http"]?["host"]?.stringValue ?? "127.0.0.1",
            httpPort: doc["http"]?["port"]?.integerValue.map(Int.init) ?? 8420,
            httpRateLimits: Deployment.RateLimits(doc["http"]?["rateLimit"]),
            file: file,
            mail: mailProvider(doc["providers"]?["mail"]),
            hubRegistrationOpen: doc["hub"]?["registration"]?.stringValue == "open"
        )
        deployment.hubFiles = hubFilesProvider(doc["providers"]?["hubFiles"], base: base)
        deployment.document = doc
        deployment.metricsAccess = doc["http"]?["metrics"]?.stringValue.flatMap(Deployment.MetricsAccess.init(rawValue:)) ?? .token
        if let tiles = doc["http"]?["mapTiles"], let url = tiles["url"]?.stringValue, let attribution = tiles["attribution"]?.stringValue {
            deployment.mapTiles = Deployment.MapTiles(url: url, attribution: attribution)
        }
        return deployment
    }
}

extension DeploymentReader {
    /// `providers.notifications`, already checked against the schema.
    static func notificationsProvider(_ doc: JSONValue?) -> Deployment.NotificationsProvider {
        var provider = Deployment.NotificationsProvider()
        guard let doc else { return provider }
        provider.inbox = doc["inbox"]?.boolValue ?? true
        provider.log = doc["log"]?.boolValue ?? false
        provider.webhooks = doc["webhooks"]?.arrayValue?.compactMap { $0["url"]?.stringValue } ?? []
        if let text = doc["lateAfter"]?.stringValue, let seconds = DurationText.seconds(text) { provider.lateAfterSeconds = seconds }
        provider.lateHorizonSeconds = doc["lateHorizon"]?.stringValue.flatMap(DurationText.seconds)
        return provider
    }

    /// `providers.location`, already checked against the schema.
    static func locationProvider(_ doc: JSONValue?, base: URL? = nil) -> Deployment.LocationProvider {
        var provider = Deployment.LocationProvider()
        guard let doc else { return provider }
        if let gpsd = doc["gpsd"] {
            provider.gpsd = (gpsd["host"]?.stringValue ?? "127.0.0.1", gpsd["port"]?.integerValue.map(Int.init) ?? 2947)
        }
        if let text = doc["futureMargin"]?.stringValue, let seconds = DurationText.seconds(text) { provider.futureMarginSeconds = seconds }
        provider.mqtt = mqttSource(doc["mqtt"], base: base)
        return provider
    }

    /// `providers.location.mqtt`: `mqtt://host[:1883]` or `mqtts://host[:8883]`, files made absolute.
    static func mqttSource(_ doc: JSONValue?, base: URL?) -> Deployment.MQTTSource? {
        guard let doc, let text = doc["url"]?.stringValue, let url = URL(string: text), let host = url.host else { return nil }
        let tls = url.scheme == "mqtts"
        func absolute(_ path: String?) -> String? {
            guard let path else { return nil }
            return path.hasPrefix("/") || base == nil ? path : base!.appendingPathComponent(path).standardizedFileURL.path
        }
        return Deployment.MQTTSource(host: host, port: url.port ?? (tls ? 8883 : 1883), tls: tls,
                                     topic: doc["topic"]?.stringValue ?? "owntracks/#", username: doc["username"]?.stringValue,
                                     passwordFile: absolute(doc["passwordFile"]?.stringValue), caFile: absolute(doc["caFile"]?.stringValue),
                                     clientID: doc["clientId"]?.stringValue)
    }

    /// `providers.http`, already checked against the schema.
    static func httpProvider(_ doc: JSONValue?) -> Deployment.HTTPProvider {
        var provider = Deployment.HTTPProvider()
        guard let doc else { return provider }
        for (prefix, target) in doc["redirects"]?.objectValue ?? [:] {
            if let target = target.stringValue { provider.redirects[prefix] = target }
        }
        if let megabytes = doc["maxResponseMB"]?.doubleValue { provider.maxResponseBytes = Int(megabytes * 1_048_576) }
        return provider
    }

    /// `providers.hubStore`, already checked against the schema.
    static func hubStoreProvider(_ doc: JSONValue?) -> Deployment.HubStoreProvider {
        guard let doc, doc["kind"]?.stringValue == "postgresql" else { return .sqlite }
        var settings = Deployment.PostgreSQLSettings()
        if let host = doc["host"]?.stringValue { settings.host = host }
        if let port = doc["port"]?.integerValue { settings.port = Int(port) }
        if let user = doc["user"]?.stringValue { settings.user = user }
        if let database = doc["database"]?.stringValue { settings.database = database }
        if let variable = doc["passwordEnv"]?.stringValue { settings.passwordEnv = variable }
        if let tls = doc["tls"]?.stringValue { settings.tls = tls }
        return .postgresql(settings)
    }

    /// `providers.mail`, already checked against the schema.
    static func mailProvider(_ doc: JSONValue?) -> Deployment.MailProvider? {
        guard let doc, let host = doc["host"]?.stringValue, let from = doc["from"]?.stringValue else { return nil }
        var provider = Deployment.MailProvider(host: host, from: from)
        if let port = doc["port"]?.integerValue { provider.port = Int(port) }
        provider.usernameEnv = doc["usernameEnv"]?.stringValue
        provider.passwordEnv = doc["passwordEnv"]?.stringValue
        return provider
    }

    /// `providers.hubFiles`, already checked against the schema.
    static func hubFilesProvider(_ doc: JSONValue?, base: URL) -> Deployment.HubFilesProvider {
        var provider = Deployment.HubFilesProvider()
        guard let doc else { return provider }
        if let directory = doc["directory"]?.stringValue {
            provider.directory = directory.hasPrefix("/") ? directory : base.appendingPathComponent(directory).standardizedFileURL.path
        }
        provider.quotaBytesPerPerson = doc["quotaMBPerPerson"]?.doubleValue.map { Int64($0 * 1_048_576) }
        provider.maxFileBytes = doc["maxFileMB"]?.doubleValue.map { Int64($0 * 1_048_576) }
        return provider
    }

    /// `providers.sync`, already checked against the schema.
    static func syncProvider(_ doc: JSONValue?) -> Deployment.SyncProvider? {
        guard let hub = doc?["hub"]?.stringValue else { return nil }
        var provider = Deployment.SyncProvider(hub: hub)
        if let text = doc?["every"]?.stringValue, let seconds = DurationText.seconds(text), seconds > 0 { provider.everySeconds = seconds }
        provider.eagerFiles = Set(doc?["eagerFiles"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        if let text = doc?["timeout"]?.stringValue, let seconds = DurationText.seconds(text), seconds > 0 {
            provider.timeoutSeconds = Double(seconds)
        }
        return provider
    }
}
