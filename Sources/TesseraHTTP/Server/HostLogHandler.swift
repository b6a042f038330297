import Logging
import TesseraRuntime

/// Sends Hummingbird's log lines to the host's log (source `http`), so the server writes nothing
/// to stdout on its own and a quiet host stays quiet. Only warnings and worse pass by default.
struct HostLogHandler: LogHandler {
    let log: HostLog
    var logLevel: Logger.Level = .warning
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let level: HostLog.Level = switch event.level {
        case .trace, .debug: .debug
        case .info, .notice: .info
        case .warning: .warning
        case .error, .critical: .error
        }
        log(level, "http", "\(event.message)")
    }
}
