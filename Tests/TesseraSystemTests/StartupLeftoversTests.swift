import Foundation
import Glibc
import Testing
@testable import TesseraSystem

/// `tessera serve` gives back the code pages its start touched (``StartupLeftovers``). A library is
/// loaded here, its code read so that it is resident, and given back: its pages leave the process
/// and read back byte for byte the same.
@Suite struct StartupLeftoversTests {
    /// A plugin library built against SDK 1.3 (the runtime's fixture).
    private let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../TesseraRuntimeTests/Fixtures/sdk-1.3/libTesseraHello.so").standardizedFileURL.path

    /// A copy of the fixture in a folder of its own: its pages are its own file's, which no other
    /// test reads. Given back from the fixture itself, 12 KB were resident again when the
    /// count was read in a full run, of about 45 (the compatibility test runs the fixture meanwhile).
    private func copyOfTheFixture() throws -> String {
        let folder = NSTemporaryDirectory() + "tessera-leftovers-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixture, toPath: folder + "/libTesseraHello.so")
        return folder + "/libTesseraHello.so"
    }

    /// Kilobytes of `path`'s executable mappings resident now, from /proc/self/smaps.
    private func residentCode(of path: String) throws -> Int {
        var total = 0, inside = false
        // Read to its end: a /proc file says it is empty, and it is long (a line per mapping and field).
        let smaps = String(decoding: try #require(FileHandle(forReadingAtPath: "/proc/self/smaps")).readDataToEndOfFile(), as: UTF8.self)
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), fields.count >= 2, range.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
                inside = fields.count >= 6 && fields[5] == path && fields[1].hasPrefix("r-x")
            } else if inside, fields.first == "Rss:", fields.count >= 2, let kb = Int(fields[1]) {
                total += kb
            }
        }
        return total
    }

    /// Reads every byte of `segments` (which brings their pages in) and sums them.
    private func touch(_ segments: [StartupLeftovers.Segment]) -> UInt64 {
        var sum: UInt64 = 0
        for segment in segments {
            let bytes = UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: segment.start), count: segment.length)
            for (i, byte) in bytes.enumerated() { sum &+= UInt64(byte) &* UInt64(i &+ 1) }
        }
        return sum
    }

    @Test func aLibrarysCodeLeavesTheProcessAndReadsBackTheSame() throws {
        let library = try copyOfTheFixture()
        // Its dependencies, the SDK among them, are this process's already: found by name.
        guard dlopen(library, RTLD_NOW) != nil else {
            Issue.record("could not load \(library): \(String(cString: dlerror()))")
            return
        }
        let segments = StartupLeftovers.codeSegments { $0 == library }.filter { $0.object == library }
        #expect(!segments.isEmpty)
        let before = touch(segments)
        let resident = try residentCode(of: library)
        #expect(resident >= segments.reduce(0) { $0 + $1.length } / 1024 / 2, "read whole, the code is resident: \(resident) KB")

        #expect(StartupLeftovers.giveBackCode(segments) == segments.reduce(0) { $0 + $1.length })
        let after = try residentCode(of: library)
        #expect(after < resident / 4, "given back: \(resident) KB resident before, \(after) KB after")
        #expect(touch(segments) == before, "the code reads back the same")
    }

    @Test func onlyExecutableSegmentsThatAreNotWritableAreNamed() throws {
        // The segments first, then the map: a library other tests load meanwhile is then in the
        // map but not in the segments. Read the other way round, a library loaded between the two
        // reads lay where the older map still showed another mapping (a full run saw "r--s").
        let segments = StartupLeftovers.codeSegments { _ in true }
        let maps = try String(contentsOfFile: "/proc/self/maps", encoding: .utf8).split(separator: "\n").compactMap { line -> (ClosedRange<UInt>, String)? in
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            let bounds = fields[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
            guard bounds.count == 2 else { return nil }
            return (bounds[0]...(bounds[1] - 1), String(fields[1]))
        }
        #expect(segments.contains { $0.object.isEmpty }, "the executable itself is always named")
        for segment in segments {
            // Every page of the segment lies in a mapping that is executable and not writable.
            for mapping in maps where mapping.0.overlaps(segment.start...(segment.start + UInt(segment.length) - 1)) {
                #expect(mapping.1.hasPrefix("r-x"), "\(segment.object) at \(String(segment.start, radix: 16)): \(mapping.1)")
            }
        }
        #expect(StartupLeftovers.codeSegments { _ in false }.allSatisfy { $0.object.isEmpty })
    }

    @Test func freedHeapIsGivenBack() {
        // Many blocks allocated and freed: malloc keeps their pages until trimmed.
        var blocks: [UnsafeMutableRawPointer] = []
        for _ in 0..<4_000 {
            guard let block = malloc(4_096) else { continue }
            memset(block, 1, 4_096)
            blocks.append(block)
        }
        for block in blocks { free(block) }
        #expect(StartupLeftovers.giveBackFreedHeap(), "16 MB freed, some of it is returned")
    }
}
