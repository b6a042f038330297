import TesseraSDK

/// The host's log: every line has a source (`host`, or a plugin id) and a level. Where lines go is
/// the caller's choice (stderr for the CLI). Never put secrets or tokens in a line.
public struct HostLog: Sendable {
    public typealias Level = PluginLog.Level
    private let sink: @Sendable (Level, String, String) -> Void

    public init(sink: @escaping @Sendable (Level, _ source: String, _ message: String) -> Void) { self.sink = sink }

    /// A log that drops every line.
    public static var discarding: HostLog { HostLog { _, _, _ in } }

    public func callAsFunction(_ level: Level, _ source: String, _ message: String) { sink(level, source, message) }

    /// The log a plugin gets: lines tagged with its id.
    func pluginLog(_ id: String) -> PluginLog { PluginLog { level, message in sink(level, id, message) } }
}
