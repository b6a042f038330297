import ArgumentParser
import Foundation
import TesseraLoader
import TesseraSDK

/// `tessera sdk export DIR`: the plugin SDK on its own, for plugins built without this repository.
struct SDK: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sdk",
        abstract: "The plugin SDK, for plugins built without this repository.",
        subcommands: [Export.self])

    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write the SDK package to a folder, as a git repository tagged with its version.",
            discussion: """
                DIR must not exist, or be empty. It gets the SDK package (Package.swift; the Swift library; the C headers \
                of the plugin ABI and of the stamp), .swift-version with the one Swift version plugins must be built \
                with, and a README; then one git commit, tagged with the SDK's version (its ABI version, such as 1.10.0), \
                so that it can be published and a plugin can name it by URL and version, \
                `.package(url: "file:///path/to/DIR", from: "1.10.0")` or the URL it is published at. \
                `tessera new-plugin NAME --sdk DIR` (or --sdk-url URL) writes such a package.
                """)

        @Argument(help: "The folder to write (it must not exist, or be empty).")
        var dir: String
        @Option(name: .long, help: "The SDK package folder (default: the sdk folder of the repository this tessera was built in).")
        var sdk: String?

        func run() async throws {
            try await reportingErrors {
                let source = try PluginTemplate.sdkFolder(option: sdk)
                let folder = PluginTemplate.absolute(dir)
                try PluginTemplate.checkEmpty(folder, otherwise: "choose another DIR, or remove it")
                try SDKExport.write(from: source, to: folder)
                let reference = SDKReference.export(at: folder)
                say("""
                    exported the Tessera SDK \(SDKExport.version) (Swift \(HostIdentity.current.swiftVersion)) to \(folder), a git repository tagged \(SDKExport.version)
                    a plugin's Package.swift names it by URL and version (or the URL you publish it at):
                      \(reference.dependency)
                    and links .product(name: "TesseraSDK", package: "\(reference.packageName)") and TesseraPluginStamp; or make a new plugin on it:
                      \(PluginTemplate.shellQuoted(PluginTemplate.executablePath ?? "tessera")) new-plugin NAME --sdk \(PluginTemplate.shellQuoted(folder))
                    """)
            }
        }
    }
}

/// What `tessera sdk export` writes.
enum SDKExport {
    /// The version an export is tagged with, and a plugin asks for: the SDK's ABI version as
    /// `MAJOR.MINOR.0` (a new minor adds to the SDK; a new major breaks it, as SwiftPM's `from:` expects).
    static var version: String { "\(SDKVersion.loadedMajor).\(SDKVersion.loadedMinor).0" }

    /// The SDK package's own files: its manifest and sources (the tests and build products stay).
    static let packageFiles = ["Package.swift", "Sources"]

    /// Copies the package from `source` to `folder`, adds `.swift-version`, a README and a
    /// `.gitignore`, and commits and tags it.
    static func write(from source: String, to folder: String) throws {
        let files = FileManager.default
        do {
            try files.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for name in packageFiles {
                try files.copyItem(atPath: source + "/" + name, toPath: folder + "/" + name)
            }
            try Data((HostIdentity.current.swiftVersion + "\n").utf8).write(to: URL(fileURLWithPath: folder + "/.swift-version"))
            try Data(readme.utf8).write(to: URL(fileURLWithPath: folder + "/README.md"))
            try Data(".build/\nPackage.resolved\n".utf8).write(to: URL(fileURLWithPath: folder + "/.gitignore"))
        } catch {
            throw CLIError(code: .failure, message: "cannot write the SDK to \(folder): \(error.localizedDescription)")
        }
        try commitAndTag(folder)
    }

    /// Whether `folder` is a git repository with the tag ``version``: an export of this SDK.
    static func isTagged(_ folder: String) -> Bool {
        guard FileManager.default.fileExists(atPath: folder + "/.git") else { return false }
        let (status, output) = ExternalCommand.run("git", ["tag", "--list", version], in: folder, mergingErrors: false)
        return status == 0 && output.split(separator: "\n").contains { $0.trimmingCharacters(in: .whitespaces) == version }
    }

    /// One commit of everything, tagged ``version``. The author is the exporting tool, so that it
    /// works on a machine with no git identity set.
    static func commitAndTag(_ folder: String) throws {
        let identity = ["-c", "user.name=tessera sdk export", "-c", "user.email=tessera@localhost",
                        "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"]
        let steps: [[String]] = [
            ["init", "-q"],
            ["add", "-A"],
            ["commit", "-q", "-m", "Tessera SDK \(version) for Swift \(HostIdentity.current.swiftVersion)"],
            ["tag", version],
        ]
        for step in steps {
            let (status, output) = ExternalCommand.run("git", identity + step, in: folder, mergingErrors: true)
            guard status == 0 else {
                throw CLIError(code: .failure, message: "cannot make \(folder) a git repository: git \(step.joined(separator: " ")) failed (\(status)): "
                    + output.trimmingCharacters(in: .whitespacesAndNewlines))
            }
        }
    }

    static var readme: String {
        """
        # The Tessera plugin SDK \(version)

        The one shared library that a Tessera host and every plugin link (`TesseraSDK`), and the stamp
        each plugin carries (`TesseraPluginStamp`), exported by `tessera sdk export` so that a plugin
        builds without the host's sources.

        - Build plugins with Swift \(HostIdentity.current.swiftVersion) exactly (`.swift-version`): Linux has no
          Swift ABI stability, and a host refuses a plugin built by another compiler.
        - Name it by URL and version, as any package: `.package(url: "file:///path/to/this/folder",
          from: "\(version)")`, or the URL this repository is published at; then the products
          `.product(name: "TesseraSDK", package: "<the URL's last part, lowercased>")` and
          `TesseraPluginStamp`. `from:` takes later minors of the same major, which only add.
          (The manifest says `swift-tools-version:6.2`: SwiftPM takes a package named by version
          whose targets use unsafe flags, here `-enable-library-evolution`, only from 6.2 on.)
        - `tessera new-plugin NAME --sdk /path/to/this/folder` (or `--sdk-url URL`) makes a plugin
          package on it.
        - The C headers of the plugin ABI are in `Sources/CTesseraABI/include`.

        """
    }
}
