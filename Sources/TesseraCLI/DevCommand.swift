import ArgumentParser
import Foundation
import TesseraHTTP
import TesseraManifest
import TesseraRuntime
import TesseraSDK

/// `tessera dev PLUGIN`: serve, watch the plugin's sources, rebuild its product on change and swap it in.
struct Dev: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dev",
        abstract: "Run the host, rebuild a plugin when its sources change, and swap the new build in.",
        discussion: """
            Serves like `tessera serve`. The plugin's product is its manifest's library name; its sources are the \
            folders of that product's targets in the Swift package at --package-path. When a file there changes, \
            only that product is rebuilt (`swift build --product NAME`); a build error is printed and the running \
            generation keeps serving; a good build is swapped in while the host runs (docs/hot-swap.md).
            """)
    @Argument(help: "The plugin's id.") var plugin: String
    @Option(name: .long, help: "The Swift package that builds the plugin (default: the current folder).") var packagePath = "."
    @Option(name: .long, help: "Listen on this port instead of the deployment's (0: any free port).") var port: Int?
    @Option(name: .long, help: "How often to look for changes, in seconds.") var interval: Double = 0.5
    @OptionGroup var host: HostArguments

    func run() async throws {
        let termination = TerminationSignal()
        CrashReport.installHandlers()  // a crash names the in-process plugin and ends the host at once
        try await reportingErrors {
            let host = try self.host.makeHost()
            let http = HTTPConfiguration(host: host.deployment.httpHost, port: port ?? host.deployment.httpPort,
                                         rateLimits: .init(host.deployment.httpRateLimits))
            let (server, background) = try await Serve.start(host, http: http)
            guard let product = host.manifest(of: plugin)?.library.name else {
                await Serve.stop(host, server: server, background: background)
                throw CLIError(code: .notFound, message: "no manifest declares '\(plugin)' with a library name (a product to build)")
            }
            let package = URL(fileURLWithPath: packagePath).standardizedFileURL.path
            let watcher = try SourceWatcher(folders: try Self.sourceFolders(of: product, package: package))
            say("watching \(watcher.folders.joined(separator: ", ")) for \(plugin) (product \(product)); Ctrl-C to stop")
            let loop = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(interval))
                    guard watcher.changed() else { continue }
                    await rebuildAndSwap(host, product: product, package: package)
                }
            }
            await termination.wait()
            loop.cancel()
            await Serve.stop(host, server: server, background: background)
        }
    }

    /// One round: build the product, and swap it in if the build worked.
    func rebuildAndSwap(_ host: any HostAPI, product: String, package: String) async {
        say("change seen; building \(product)…")
        let build = Self.swift(["build", "--product", product, "--package-path", package], mergingErrors: true)
        guard build.status == 0 else {
            say(build.output.trimmingCharacters(in: .whitespacesAndNewlines))
            say("build failed; generation \(host.status(of: plugin)?.generation ?? 0) of \(plugin) keeps serving")
            return
        }
        let binPath = Self.swift(["build", "--show-bin-path", "--package-path", package]).output.trimmingCharacters(in: .whitespacesAndNewlines)
        do {
            let report = try await host.swap(plugin, to: .library(binPath + "/lib\(product).so"))
            let pause = report.pause.timeInterval * 1000
            say(String(format: "swapped in generation %d of %@ (calls held %.2f ms)", report.generation, plugin, pause))
        } catch {
            say("swap failed: \(error.message)")
        }
    }

    /// The folders of the targets that make up `product`, from `swift package describe`.
    static func sourceFolders(of product: String, package: String) throws -> [String] {
        let described = swift(["package", "--package-path", package, "describe", "--type", "json"])
        guard described.status == 0, let json = try? JSONValue(parsing: Array(described.output.utf8)) else {
            throw CLIError(code: .failure, message: "cannot describe the package at \(package): \(described.output.prefix(300))")
        }
        guard let targets = json["products"]?.arrayValue?.first(where: { $0["name"]?.stringValue == product })?["targets"]?.arrayValue else {
            throw CLIError(code: .notFound, message: "the package at \(package) has no product '\(product)'; pass --package-path")
        }
        let names = Set(targets.compactMap(\.stringValue))
        return (json["targets"]?.arrayValue ?? []).filter { names.contains($0["name"]?.stringValue ?? "") }
            .compactMap { $0["path"]?.stringValue }.map { package + "/" + $0 }
    }

    /// Runs `swift` with `arguments`; its exit status and output (stdout, or with `mergingErrors`
    /// stdout and stderr together, as a person would see them).
    static func swift(_ arguments: [String], mergingErrors: Bool = false) -> (status: Int32, output: String) {
        ExternalCommand.run("swift", arguments, mergingErrors: mergingErrors)
    }
}

/// Notices changes in folders by their files' modification times and sizes (polling: simple, and
/// the same on every file system).
final class SourceWatcher: Sendable {
    let folders: [String]
    private let last: NSLock = NSLock()
    nonisolated(unsafe) private var snapshot: [String: String]

    init(folders: [String]) throws {
        self.folders = folders
        snapshot = [:]
        snapshot = Self.scan(folders)
    }

    /// Whether anything changed since the last look.
    func changed() -> Bool {
        let now = Self.scan(folders)
        last.lock()
        defer { last.unlock() }
        guard now != snapshot else { return false }
        snapshot = now
        return true
    }

    static func scan(_ folders: [String]) -> [String: String] {
        var files: [String: String] = [:]
        for folder in folders {
            guard let walker = FileManager.default.enumerator(atPath: folder) else { continue }
            while let relative = walker.nextObject() as? String {
                let path = folder + "/" + relative
                guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                      attributes[.type] as? FileAttributeType == .typeRegular else { continue }
                let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
                files[path] = "\(modified)-\(attributes[.size] ?? 0)"
            }
        }
        return files
    }
}
