import Foundation

/// Where `tessera-plugin-runner`, the process tier's child, is: `$TESSERA_PLUGIN_RUNNER`, else
/// beside this process's executable (SwiftPM builds both into one folder, and the test bundle
/// lives there too).
public enum PluginRunnerExecutable {
    public static var path: String {
        if let path = ProcessInfo.processInfo.environment["TESSERA_PLUGIN_RUNNER"], !path.isEmpty { return path }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return ((exe as NSString).deletingLastPathComponent as NSString).appendingPathComponent("tessera-plugin-runner")
    }
}
