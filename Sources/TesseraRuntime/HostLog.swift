import Logging
import TesseraSDK

/// The host's log: one swift-log `Logger`, and every line the host, its capabilities, its plugins
/// and the HTTP edge write goes through it with metadata saying where it comes from — `source`
/// (`host`, a plugin id, `http`, `events`…), and for a plugin's own lines `plugin` and
/// `generation`; the HTTP edge adds `request` (the request id) to the lines of a request.
///
/// Where lines go is the `Logger`'s handler: the CLI's writes them to stderr
/// (``HostLog/standardError(level:format:)``); tests discard them. Never put secrets or tokens in a line.
public struct HostLog: Sendable {
    public typealias Level = PluginLog.Level
    /// The logger every line goes to.
    public let logger: Logger

    /// A log writing to `logger`.
    public init(_ logger: Logger) { self.logger = logger }

    /// A log that drops every line.
    public static var discarding: HostLog { HostLog(Logger(label: "tessera", factory: { _ in SwiftLogNoOpLogHandler() })) }

    /// A log writing one line per entry to stderr, `time [level] source: message key=value…`:
    /// warnings and errors, and with `verbose` everything.
    public static func standardError(verbose: Bool) -> HostLog {
        standardError(level: verbose ? .debug : .warning, format: .text)
    }

    /// A log writing one line per entry at `level` and above to stderr, as text or JSON.
    /// Warnings and errors are written at once; lines of less weight within a couple of
    /// milliseconds, in batches (``flush()`` writes them at once).
    public static func standardError(level: Level, format: LogFormat) -> HostLog {
        lines(level: level, format: format, writer: .standardError)
    }

    /// ``standardError(level:format:)``, to another open file descriptor, which the log never
    /// closes (`tessera-bench` writes the lines `tessera serve` writes to a pipe it reads).
    @_spi(Benchmarks) public static func lines(level: Level, format: LogFormat, descriptor: Int32) -> HostLog {
        lines(level: level, format: format, writer: LogLineWriter(descriptor: descriptor))
    }

    private static func lines(level: Level, format: LogFormat, writer: LogLineWriter) -> HostLog {
        var logger = Logger(label: "tessera") { _ in LineLogHandler(format: format, writer: writer) }
        logger.logLevel = level.swiftLogLevel
        return HostLog(logger)
    }

    /// Writes to stderr every line ``standardError(level:format:)`` still holds: for a process
    /// about to end without returning from `main` (`_exit`), where `atexit` does not run.
    public static func flush() {
        LogLineWriter.standardError.flush()
    }

    /// Whether a line at `level` would be written: for lines costly to make (one per request).
    public func writes(_ level: Level) -> Bool { logger.logLevel <= level.swiftLogLevel }

    /// Writes `message` from `source` at `level`.
    public func callAsFunction(_ level: Level, _ source: String, _ message: String) {
        logger.log(level: level.swiftLogLevel, "\(message)", metadata: ["source": .string(source)])
    }

    /// The log a plugin's generation gets: its lines carry its id and generation.
    func pluginLog(_ id: String, generation: Int) -> PluginLog {
        let logger = self.logger
        return PluginLog { level, message in
            logger.log(level: level.swiftLogLevel, "\(message)",
                       metadata: ["source": .string(id), "plugin": .string(id), "generation": .stringConvertible(generation)])
        }
    }

    /// A plain text hook for the capability modules, which depend on nothing but the toolchain:
    /// their lines enter the host's log here, from `source` at `level`.
    func hook(_ level: Level, _ source: String) -> @Sendable (String) -> Void {
        { message in self(level, source, message) }
    }
}

extension PluginLog.Level {
    /// The swift-log level of the same weight.
    var swiftLogLevel: Logger.Level {
        switch self {
        case .debug: .debug
        case .info: .info
        case .warning: .warning
        case .error: .error
        @unknown default: .info  // a level a later SDK adds
        }
    }
}
