import Foundation

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

    public init(dataDirectory: String, libraryPaths: [String] = [], log: HostLog = .discarding, onlyPlugins: Set<String>? = nil) {
        self.dataDirectory = dataDirectory
        self.libraryPaths = libraryPaths
        self.log = log
        self.onlyPlugins = onlyPlugins
    }

    /// The folder of the running executable: where `swift build` puts the plugin libraries too.
    public static var executableDirectory: String? {
        guard let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        return (path as NSString).deletingLastPathComponent
    }
}
