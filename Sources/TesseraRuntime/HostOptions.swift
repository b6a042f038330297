import Foundation
import TesseraSDK

/// How a host is set up beyond its deployment file.
public struct HostOptions: Sendable {
    /// Where the host keeps its data: plugin databases, timers, the virtual clock, staged libraries.
    public var dataDirectory: String
    /// Extra folders searched for plugin libraries, before the deployment's and the executable's.
    public var libraryPaths: [String]
    /// Where log lines go.
    public var log: HostLog
    /// Plugins to bring up; all enabled ones when `nil` (a CLI call may start only the one it calls).
    public var onlyPlugins: Set<String>?
    /// Plugins whose code is already linked into this process, by id: the host makes their instances
    /// with the given factory instead of locating, checking and loading a library (gates 1–3). Every
    /// other step — manifest, deployment, grants, config, capabilities, migrations, start, jobs,
    /// dispatch, timers — is the same. For tests (TesseraTesting); empty in a real host.
    public var inProcessPlugins: [String: PluginFactory]
    /// Restarts, quarantine and deadlines of plugins in the process tier (docs/isolation.md).
    public var isolation = IsolationPolicy()

    public init(dataDirectory: String, libraryPaths: [String] = [], log: HostLog = .discarding, onlyPlugins: Set<String>? = nil,
                inProcessPlugins: [String: PluginFactory] = [:]) {
        self.dataDirectory = dataDirectory
        self.libraryPaths = libraryPaths
        self.log = log
        self.onlyPlugins = onlyPlugins
        self.inProcessPlugins = inProcessPlugins
    }

    /// The folder of the running executable: where `swift build` puts the plugin libraries too.
    public static var executableDirectory: String? {
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        return (path as NSString).deletingLastPathComponent
    }
}
