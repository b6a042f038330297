import Foundation
import Logging

/// Writes each entry as one line on stderr: `[level] source: message key=value…`, the form the
/// CLI has always printed, with any other metadata after the message.
struct LineLogHandler: LogHandler {
    var logLevel: Logger.Level = .warning
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var all = metadata.merging(event.metadata ?? [:]) { _, entry in entry }
        let source = all.removeValue(forKey: "source").map { "\($0)" } ?? event.source
        all.removeValue(forKey: "plugin")  // the source says it
        let extra = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        FileHandle.standardError.write(Data("[\(Self.name(event.level))] \(source): \(event.message)\(extra)\n".utf8))
    }

    static func name(_ level: Logger.Level) -> String {
        switch level {
        case .trace, .debug: "debug"
        case .info, .notice: "info"
        case .warning: "warning"
        case .error, .critical: "error"
        }
    }
}
