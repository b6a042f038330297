import Logging
import TesseraRuntime

/// Sends Hummingbird's log lines to the host's log (source `http`), so the server writes nothing
/// to stdout on its own and a quiet host stays quiet. Only warnings and worse pass by default.
struct HostLogHandler: LogHandler {
    let log: HostLog
    var logLevel: Logger.Level = .warning
    // Lines carry no metadata, so none is kept: Hummingbird sets a request id on its logger for
    // every request, and storing it meant a dictionary copy per request for nothing.
    var metadata: Logger.Metadata {
        get { [:] }
        set {}
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { nil }
        set {}
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
