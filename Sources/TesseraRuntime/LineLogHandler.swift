import Foundation
import Logging

/// How the host's log lines look: text for a person reading a terminal or the journal, JSON for
/// a log collector (`--log-format json`).
public enum LogFormat: String, Sendable, CaseIterable {
    /// `2026-03-02T08:00:00.123Z [warning] source: message key=value…`
    case text
    /// One JSON object per line: `{"time", "level", "source", "message", …metadata}`.
    case json
}

/// Writes each entry as one line on stderr, with the wall-clock time it was written (a virtual
/// deployment clock is not the time an operator reads a log by): `time [level] source: message
/// key=value…`, or the same as a JSON object. A message is kept on its line: a line break in it
/// is written as `\n`, so nothing a plugin logs can pose as a line of the host's (issue 43).
struct LineLogHandler: LogHandler {
    var logLevel: Logger.Level = .warning
    var metadata: Logger.Metadata = [:]
    var format: LogFormat = .text

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var all = metadata.merging(event.metadata ?? [:]) { _, entry in entry }
        let source = all.removeValue(forKey: "source").map { "\($0)" } ?? event.source
        all.removeValue(forKey: "plugin")  // the source says it
        let time = Date().formatted(Self.timeStyle)
        let line: String
        switch format {
        case .text:
            let extra = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.oneLine("\($0.value)"))" }.joined(separator: " ")
            line = "\(time) [\(Self.name(event.level))] \(source): \(Self.oneLine("\(event.message)"))\(extra)"
        case .json:
            var object: [String: String] = ["time": time, "level": Self.name(event.level), "source": source, "message": "\(event.message)"]
            for (key, value) in all where object[key] == nil { object[key] = "\(value)" }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            line = String(decoding: data, as: UTF8.self)
        }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// `2026-11-29T03:35:40.123Z`: UTC, to the millisecond.
    static let timeStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)

    /// The text with its line breaks written as `\n` and `\r`.
    static func oneLine(_ text: String) -> String {
        guard text.contains(where: { $0.isNewline }) else { return text }
        return text.replacingOccurrences(of: "\r\n", with: "\\n").replacingOccurrences(of: "\n", with: "\\n")
            .replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\u{2028}", with: "\\u2028")
            .replacingOccurrences(of: "\u{85}", with: "\\u0085")
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
