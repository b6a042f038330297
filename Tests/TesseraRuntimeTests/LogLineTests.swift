import Foundation
import Logging
import Testing
@testable import TesseraRuntime

/// The host's log lines as `tessera serve` writes them (docs/http.md, "The log"): their time as
/// Foundation's ISO 8601 style wrote it, a line break in a message written out, and the lines in
/// the order they were logged, a warning on the descriptor before the call that logged it returns.
@Suite(.hangWatchdog) struct LogLineTests {
    @Test func theTimeReadsAsFoundationsISO8601WithMilliseconds() {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        // Around a leap day, the ends of a year and a day, and milliseconds with leading zeros.
        let instants: [(seconds: Int, milliseconds: Int)] = [
            (0, 0), (951_782_400, 5), (1_709_164_799, 999), (1_709_164_800, 10), (1_767_225_599, 123), (1_767_225_600, 1),
            (4_102_444_800, 500),
        ]
        for (seconds, milliseconds) in instants {
            let date = Date(timeIntervalSince1970: Double(seconds) + Double(milliseconds) / 1000 + 0.0002)
            #expect(LogTime.text(seconds: seconds, milliseconds: milliseconds) == date.formatted(style), "\(seconds).\(milliseconds)")
        }
        // The second kept from the line before is not the next line's.
        #expect(LogTime.text(seconds: 61, milliseconds: 0) == "1970-01-01T00:01:01.000Z")
        #expect(LogTime.text(seconds: 62, milliseconds: 7) == "1970-01-01T00:01:02.007Z")
    }

    @Test func aLineBreakIsFoundOnTheBytesWhereverCharactersFindOne() {
        let texts = ["GET /v1/plugins 200 0.41 ms request=3fa2c1-1f", "", "a\nb", "a\r\nb", "a\rb", "tab\tonly", "\u{0B}", "\u{0C}",
                     "next line\u{85}here", "line\u{2028}separator", "paragraph\u{2029}separator", "Příliš žluťoučký kůň",
                     "…ň and ¨ and ‰", "emoji 👩‍👩‍👧 and ⸨ text ⸩", "\u{00A8}\u{00A9}\u{0080}", "end\n"]
        for text in texts {
            #expect(LineLogHandler.mayBreakLines(text) == text.contains(where: \.isNewline), "\(text.debugDescription)")
        }
        #expect(LineLogHandler.oneLine("one\ntwo\r\nthree\u{2028}four") == "one\\ntwo\\nthree\\u2028four")
    }

    @Test func linesComeInOrderAndAWarningIsWrittenBeforeItsCallReturns() throws {
        let (readEnd, writeEnd) = try pipeEnds()
        defer { close(readEnd) }
        let writer = LogLineWriter(descriptor: writeEnd)
        var logger = Logger(label: "test") { _ in LineLogHandler(format: .text, writer: writer) }
        logger.logLevel = .info
        for i in 1...50 { logger.info("line \(i)", metadata: ["source": "http"]) }
        logger.warning("the warning", metadata: ["source": "host"])
        // Nothing waits here: the warning's call has returned, so it and every line before it are in the pipe.
        let text = try readAvailable(readEnd)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 51, "\(text)")
        #expect(lines.dropLast().enumerated().allSatisfy { $1.hasSuffix("[info] http: line \($0 + 1)") }, "\(text)")
        #expect(lines.last?.hasSuffix("[warning] host: the warning") == true, "\(text)")
        close(writeEnd)
    }

    @Test func anInfoLineIsWrittenByTheWritersThreadAndByAFlush() throws {
        let (readEnd, writeEnd) = try pipeEnds()
        defer { close(readEnd) }
        let writer = LogLineWriter(descriptor: writeEnd)
        var logger = Logger(label: "test") { _ in LineLogHandler(format: .text, writer: writer) }
        logger.logLevel = .info
        logger.info("the first", metadata: ["source": "host"])
        // The writer's thread writes it on its own: a blocking read returns it.
        let first = try readAtLeastOneLine(readEnd)
        #expect(first.hasSuffix("[info] host: the first\n"), "\(first)")
        logger.info("the second", metadata: ["source": "host"])
        writer.flush()
        let second = try readAvailable(readEnd)
        #expect(second.hasSuffix("[info] host: the second\n"), "\(second)")
        close(writeEnd)
    }

    private func pipeEnds() throws -> (Int32, Int32) {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        return (ends[0], ends[1])
    }

    /// What the pipe holds now, without waiting for more.
    private func readAvailable(_ descriptor: Int32) throws -> String {
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(descriptor, F_SETFL, flags) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(descriptor, &buffer, buffer.count)
            guard n > 0 else { break }
            bytes += buffer[..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads, waiting as long as it takes, until a whole line has come.
    private func readAtLeastOneLine(_ descriptor: Int32) throws -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !bytes.contains(UInt8(ascii: "\n")) {
            let n = read(descriptor, &buffer, buffer.count)
            try #require(n > 0)
            bytes += buffer[..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
