import Foundation
import Glibc

/// Gives back what a long-running process's start left behind: the pages of code it ran once, and
/// the heap it freed.
///
/// `tessera serve` runs much code once: the command line's parsing, every manifest's check, the
/// databases' migrations, each module's `start`. The kernel maps the executable's and the plugin
/// libraries' code page by page as it runs, 64 KiB around each page touched, and keeps it mapped:
/// after its start a host with six modules held 16.5 MB of its executable's code against the 7.7 MB
/// a bare Hummingbird server holds of its own, and every module's code whether it serves a call or
/// not (docs/benchmarks.md, "What a start leaves resident").
///
/// Once serving, the host asks the kernel to reclaim those pages (`madvise(MADV_PAGEOUT)`, Linux
/// 5.4): code is never written, so reclaiming it loses nothing; what a request runs is read back
/// on its first use (from the page cache, or the file), and only that stays. Pages another process
/// maps too are left alone by the kernel: of the toolchain's libraries (Foundation, ICU, the Swift
/// runtime), shared with any other Swift process, only what this one alone touched goes (1.0–1.3 MB
/// more in the benchmark). Writable and relocated pages are not touched: only segments that are
/// executable and not writable are named.
///
/// The start also frees most of what it allocated (manifests' trees, the migrations' statements);
/// `malloc` keeps such pages for later allocations. ``giveBackFreedHeap()`` returns the whole free
/// pages to the kernel (`malloc_trim(0)`), as a long-running server may once its start is done.
public enum StartupLeftovers {
    /// One mapping of a loaded object's code.
    public struct Segment: Sendable, Equatable {
        /// The file's path; `""` for the executable.
        public let object: String
        /// The mapping's start address (page-aligned).
        public let start: UInt
        /// Its length in bytes.
        public let length: Int
    }

    /// The mappings of code — executable, not writable, private — of the executable and of every
    /// file whose path `include` accepts, from `/proc/self/maps` (the executable's own path is
    /// `/proc/self/exe`'s target, named `""` here).
    public static func codeSegments(including include: (String) -> Bool) -> [Segment] {
        // Read to its end: a /proc file says it is empty.
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/maps") else { return [] }
        let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        var segments: [Segment] = []
        for line in maps.split(separator: "\n") {
            // address perms offset device inode path
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6, fields[1] == "r-xp" else { continue }
            let path = fields[5].trimmingCharacters(in: .whitespaces)
            guard path.hasPrefix("/") else { continue }  // [vdso] and other kernel-made mappings
            let bounds = fields[0].split(separator: "-").compactMap { UInt($0, radix: 16) }
            guard bounds.count == 2, bounds[1] > bounds[0] else { continue }
            let object = path == executable ? "" : path
            guard object.isEmpty || include(object) else { continue }
            segments.append(Segment(object: object, start: bounds[0], length: Int(bounds[1] - bounds[0])))
        }
        return segments
    }

    /// Asks the kernel to reclaim the pages of `segments`; returns the bytes it was asked about
    /// (0 where the kernel does not know `MADV_PAGEOUT`: nothing changes then).
    @discardableResult
    public static func giveBackCode(_ segments: [Segment]) -> Int {
        // MADV_PAGEOUT, from <linux/mman.h>; Swift's Glibc module may not carry it.
        let pageOut: Int32 = 21
        var asked = 0
        for segment in segments {
            guard let address = UnsafeMutableRawPointer(bitPattern: segment.start) else { continue }
            if madvise(address, segment.length, pageOut) == 0 { asked += segment.length }
        }
        return asked
    }

    /// Returns the heap's free pages to the kernel (`malloc_trim(0)`, looked up by name: Swift's
    /// Glibc module leaves out <malloc.h>). True if some memory was released.
    @discardableResult
    public static func giveBackFreedHeap() -> Bool {
        typealias MallocTrim = @convention(c) (Int) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return false }
        return unsafeBitCast(symbol, to: MallocTrim.self)(0) == 1
    }
}
