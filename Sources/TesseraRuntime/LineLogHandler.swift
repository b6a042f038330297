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
///
/// Lines go out through a ``LogLineWriter``: warnings and errors at once, lines of less weight in
/// batches a couple of milliseconds apart.
struct LineLogHandler: LogHandler {
    var logLevel: Logger.Level = .warning
    var metadata: Logger.Metadata = [:]
    var format: LogFormat = .text
    /// Where the lines go.
    var writer: LogLineWriter = .standardError

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        // Merged only when both have entries: the host's lines carry only the event's.
        var all = metadata.isEmpty ? event.metadata ?? [:] : metadata.merging(event.metadata ?? [:]) { _, entry in entry }
        let source = all.removeValue(forKey: "source").map { "\($0)" } ?? event.source
        all.removeValue(forKey: "plugin")  // the source says it
        let time = LogTime.now()
        let line: String
        switch format {
        case .text:
            let extra = all.isEmpty ? "" : " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.oneLine("\($0.value)"))" }.joined(separator: " ")
            line = "\(time) [\(Self.name(event.level))] \(source): \(Self.oneLine("\(event.message)"))\(extra)\n"
        case .json:
            var object: [String: String] = ["time": time, "level": Self.name(event.level), "source": source, "message": "\(event.message)"]
            for (key, value) in all where object[key] == nil { object[key] = "\(value)" }
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
            line = String(decoding: data, as: UTF8.self) + "\n"
        }
        writer.write(line, atOnce: event.level >= .warning)
    }

    /// The text with its line breaks written as `\n` and `\r`.
    static func oneLine(_ text: String) -> String {
        guard mayBreakLines(text) else { return text }
        return text.replacingOccurrences(of: "\r\n", with: "\\n").replacingOccurrences(of: "\n", with: "\\n")
            .replacingOccurrences(of: "\r", with: "\\r").replacingOccurrences(of: "\u{2028}", with: "\\u2028")
            .replacingOccurrences(of: "\u{85}", with: "\\u0085")
    }

    /// Whether `text` may hold a line break (`Character.isNewline`: U+000A–U+000D, U+0085, U+2028,
    /// U+2029), read on its UTF-8 bytes: every line passes here, and walking its characters
    /// breaks the text into graphemes first.
    static func mayBreakLines(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes in
            for (i, byte) in bytes.enumerated() {
                if (0x0A...0x0D).contains(byte) { return true }
                if byte == 0x85, i > 0, bytes[i - 1] == 0xC2 { return true }
                if byte == 0xA8 || byte == 0xA9, i > 1, bytes[i - 1] == 0x80, bytes[i - 2] == 0xE2 { return true }
            }
            return false
        } ?? text.contains(where: \.isNewline)
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
