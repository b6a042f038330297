import ArgumentParser
import Foundation
import TesseraManifest
import TesseraRuntime
import TesseraSDK

/// Options every command that opens a host shares.
struct HostArguments: ParsableArguments {
    @Option(name: .long, help: "The deployment file (default: $TESSERA_DEPLOYMENT, else manifests/deployments/default.json).")
    var deployment: String?

    @Option(name: .long, help: "The data directory (default: the deployment's dataDirectory, else .tessera/<deployment name>).")
    var data: String?

    @Option(name: .long, help: "An extra folder to search for plugin libraries (repeatable).")
    var libraryPath: [String] = []

    @Flag(name: .shortAndLong, help: "Log what the host does to stderr.")
    var verbose = false

    @Option(name: .long, help: "How log lines look: text or json (default: $TESSERA_LOG_FORMAT, else text).")
    var logFormat: String?

    var deploymentFile: String {
        deployment ?? ProcessInfo.processInfo.environment["TESSERA_DEPLOYMENT"] ?? "manifests/deployments/default.json"
    }

    /// The log format asked for, or a refusal naming the option.
    func resolvedLogFormat() throws -> LogFormat {
        let text = logFormat ?? ProcessInfo.processInfo.environment["TESSERA_LOG_FORMAT"] ?? "text"
        guard let format = LogFormat(rawValue: text) else {
            throw CLIError(code: .invalidInput, message: "--log-format: expected text or json, found '\(text)'")
        }
        return format
    }

    /// The deployment file read, or a refusal naming it (exit 6).
    func readDeployment() throws -> Deployment {
        do { return try DeploymentReader.read(file: deploymentFile) } catch {
            throw CLIError(code: .invalidDeployment, message: "deployment: \(error)")
        }
    }

    /// The data directory, reading the deployment only when `--data` does not say it.
    func resolvedDataDirectory() throws -> String {
        if let data { return data }
        return dataDirectory(of: try readDeployment())
    }

    /// Reads the deployment and makes a host for it (not yet started).
    /// `quietLevel`: the least level logged without `-v` (warning; `serve` logs info, a service's
    /// journal being where an operator looks when something fails).
    func makeHost(onlyPlugins: Set<String>? = nil, quietLevel: HostLog.Level = .warning) throws -> any HostAPI {
        let deployment = try readDeployment()
        let dataDirectory = self.dataDirectory(of: deployment)
        Self.keepPrivate(dataDirectory)
        let verbose = self.verbose
        let log = HostLog.standardError(level: verbose ? .debug : quietLevel, format: try resolvedLogFormat())
        do {
            return try PluginHost(deployment: deployment, options: HostOptions(
                dataDirectory: dataDirectory, libraryPaths: libraryPath, log: log, onlyPlugins: onlyPlugins))
        } catch {
            throw CLIError(code: .failure, message: "cannot open data directory \(dataDirectory): \(error)")
        }
    }
}

extension HostArguments {
    /// The data directory: `--data`, else the deployment's `dataDirectory`, else `.tessera/<name>`.
    func dataDirectory(of deployment: Deployment) -> String {
        data ?? deployment.dataDirectory ?? ".tessera/\(deployment.name)"
    }

    /// The data directory without opening anything, or nil when the deployment cannot be read
    /// (the command then says why, as it always did).
    var dataDirectoryIfReadable: String? {
        if let data { return data }
        return (try? DeploymentReader.read(file: deploymentFile)).map(dataDirectory(of:))
    }

    /// The host serving this data directory, if one is running (`RunningHostFile`).
    func runningHost() -> RunningHostFile.Announcement? {
        dataDirectoryIfReadable.flatMap { RunningHostFile(dataDirectory: $0).running() }
    }

    /// What the host writes is the person's data, their tokens and secrets: from here on every
    /// folder it makes is 0700 and every file 0600 (umask 077; the plugin runners inherit it), and
    /// a data directory made before, readable by others, is closed to them (issue 46). A folder
    /// someone else owns is left as it is: it is not ours to change.
    static func keepPrivate(_ dataDirectory: String) {
        umask(0o077)
        var info = stat()
        guard stat(dataDirectory, &info) == 0, info.st_uid == geteuid(), info.st_mode & 0o077 != 0 else { return }
        _ = chmod(dataDirectory, info.st_mode & 0o700)
    }
}

/// An error the CLI reports as one line on stderr, with a documented exit code.
struct CLIError: Error, CustomStringConvertible {
    enum Code: Int32 {
        case failure = 1, invalidInput = 2, notFound = 3, forbidden = 4, unavailable = 5, invalidDeployment = 6
        /// The plugin's process crashed during the call (process tier); 8: the call ran past its deadline.
        case pluginCrashed = 7, pluginTimeout = 8
        /// A running host serves the data directory: ask it (issue 46).
        case hostRunning = 9
        /// No host answers at the URL a command that talks to a running host used (issue 46).
        case noHostAnswers = 10
    }
    let code: Code
    let message: String
    var description: String { message }

    init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    /// The exit code for a plugin error.
    init(_ error: PluginError) {
        switch error.code {
        case .invalidInput: code = .invalidInput
        case .notFound: code = .notFound
        case .forbidden, .notGranted: code = .forbidden
        case .unavailable: code = .unavailable
        case .pluginCrashed: code = .pluginCrashed
        case .pluginTimeout: code = .pluginTimeout
        default: code = .failure
        }
        // The kind, then the plugin's own reason where it gave one; the field unless the message names it.
        let kind = error.reason.map { "\(error.code) (\($0))" } ?? "\(error.code)"
        if let field = error.field, !error.message.contains(field) {
            message = "\(kind): \(error.message) (field \(field))"
        } else {
            message = "\(kind): \(error.message)"
        }
    }
}

extension CLIError {
    /// Prints `tessera: <message>` on stderr and exits with the code.
    func exit() -> Never {
        FileHandle.standardError.write(Data("tessera: \(message)\n".utf8))
        Foundation.exit(code.rawValue)
    }
}

/// Runs a command body, turning its errors into one stderr line and an exit code.
func reportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let error as CLIError {
        error.exit()
    } catch let error as PluginError {
        CLIError(error).exit()
    }
}

/// Writes a line to stdout at once (unbuffered, so a reader on a pipe sees it as it is said).
func say(_ text: String) { FileHandle.standardOutput.write(Data((text + "\n").utf8)) }

/// Prints `tessera: warning: <text>` on stderr: something failed that the command's result does
/// not depend on, but the operator must know.
func warn(_ text: String) { FileHandle.standardError.write(Data("tessera: warning: \(text)\n".utf8)) }
