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

    /// What a missing runner's error adds: the one command that builds it where it is looked for.
    /// A plugin's own tests in the process tier meet it first (`swift build` does not build the
    /// runner of a dependency).
    static let howToBuild = "; build it with `swift build --product tessera-plugin-runner` in the package whose tests or host "
        + "need it (a plugin's package can build it from its Tessera dependency), or point TESSERA_PLUGIN_RUNNER at one"
}
