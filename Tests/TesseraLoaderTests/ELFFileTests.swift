import Foundation
import Testing
import TesseraLoader
import TesseraTestFixtures

// MARK: - Helpers shared by the loader's low-level tests

/// A fresh path in the temporary folder (nothing is created).
func temporaryPath(_ name: String) -> String {
    NSTemporaryDirectory() + "tessera-elf-\(UUID().uuidString.prefix(8))-\(name)"
}

/// Finds a program on the usual paths.
func toolPath(_ name: String) -> String? {
    ["/usr/bin/", "/usr/local/bin/", "/bin/"].map { $0 + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// The repository root (this file is Tests/TesseraLoaderTests/ELFFileTests.swift).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// A real shared library built once with `cc` from a tiny C file: a stamp with known values in the
/// `tessera_stamp` section (laid out by the SDK's own tessera_abi.h), a DT_NEEDED on libm, a
/// soname, a build id, an exported function and variable, a hidden function, and an undefined
/// symbol (`cos`).
enum CLibrary {
    static let toolchain = "elf-test-toolchain 1.2.3 (checked by ELFFileTests)"
    static let source = """
        #include <math.h>
        #include "tessera_abi.h"
        _Static_assert(sizeof(tessera_stamp_t) == 152, "tessera_stamp_t layout");

        __attribute__((used, section("tessera_stamp"), visibility("hidden")))
        const tessera_stamp_t tessera_stamp_record = {
            TESSERA_STAMP_MAGIC, sizeof(tessera_stamp_t), 7, 3, "\(toolchain)", {0, 0, 0, 0},
        };

        double elf_test_exported(double x) { return cos(x) * 2.0; }
        int elf_test_data = 42;
        __attribute__((visibility("hidden"))) int elf_test_hidden(int x) { return x + 1; }
        """

    /// The library's path, or why it could not be built.
    static let built: Result<String, StampPatchError> = {
        guard let cc = toolPath("cc") else {
            return .failure(StampPatchError(description: "no C compiler"))
        }
        let dir = temporaryPath("clib")
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try source.write(toFile: dir + "/elftest.c", atomically: true, encoding: .utf8)
            let result = try run(cc, ["-shared", "-fPIC", "-O1", "-I", repositoryRoot + "/sdk/Sources/CTesseraABI/include",
                                          dir + "/elftest.c", "-o", dir + "/libelftest.so",
                                          "-Wl,--build-id", "-Wl,-soname,libelftest.so.1", "-Wl,--no-as-needed", "-lm"])
            guard result.status == 0 else { return .failure(StampPatchError(description: "cc failed: \(result.stderr)")) }
            return .success(dir + "/libelftest.so")
        } catch {
            return .failure(StampPatchError(description: "\(error)"))
        }
    }()

    /// The built library. The first call compiles it (and later ones wait for that) on a thread of
    /// their own: a C build held on one of Swift concurrency's two threads stalls the other tests.
    static func path() async throws -> String { try await onOwnThread { try built.get() } }
}

/// The package's own debug build, when present.
enum PackageBuild {
    static let example = repositoryRoot + "/.build/debug/libTesseraExample.so"
    static let sdk = repositoryRoot + "/.build/debug/libTesseraSDK.so"
    static var hasExample: Bool { FileManager.default.fileExists(atPath: example) }
    static var hasSDK: Bool { FileManager.default.fileExists(atPath: sdk) }
}

/// `readelf -n`'s build id of `path`.
func readelfBuildID(_ path: String) async throws -> String? {
    let result = try await runDetached(try #require(toolPath("readelf")), ["-n", path])
    guard let line = result.stdout.split(separator: "\n").first(where: { $0.contains("Build ID:") }) else { return nil }
    return line.split(separator: " ").last.map(String.init)
}

/// `nm -D --defined-only`'s symbol names of `path`, without symbol versions.
func nmDefinedSymbols(_ path: String) async throws -> [String] {
    let result = try await runDetached(try #require(toolPath("nm")), ["-D", "--defined-only", path])
    try #require(result.status == 0, "nm: \(result.stderr)")
    return result.stdout.split(separator: "\n").compactMap { line in
        line.split(separator: " ").last.map { String($0.split(separator: "@").first ?? $0) }
    }
}

/// The ELFError `body` throws, or nil if it throws none (any other error is recorded as a failure).
func elfError(_ body: () throws -> Void) -> ELFError? {
    do {
        try body()
        return nil
    } catch let error as ELFError {
        return error
    } catch {
        Issue.record("expected an ELFError, got \(error)")
        return nil
    }
}

// MARK: - ELFFile

@Suite struct ELFFileTests {
    @Test func readsTheStampOfARealLibrary() async throws {
        let elf = try ELFFile(path: try await CLibrary.path())
        let bytes = try #require(try elf.section(named: "tessera_stamp"))
        #expect(bytes.count == 152)
        let stamp = try PluginStamp(bytes: bytes)
        #expect(stamp.magic == 0x5453_5354)
        #expect(stamp.recordSize == 152)
        #expect(stamp.sdkABIMajor == 7)
        #expect(stamp.sdkABIMinor == 3)
        #expect(stamp.toolchain == CLibrary.toolchain)
        #expect(try elf.stamp() == stamp)
        #expect(elf.fileType == 3)  // ET_DYN
        #expect(elf.machine == 62)  // EM_X86_64
    }

    @Test func dynamicSection() async throws {
        let path = try await CLibrary.path()
        let elf = try ELFFile(path: path)
        #expect(elf.neededLibraries.contains("libm.so.6"))
        #expect(elf.neededLibraries.contains("libc.so.6"))
        #expect(elf.soname == "libelftest.so.1")
        // Exactly what readelf -d lists, in order.
        let readelf = try await runDetached(try #require(toolPath("readelf")), ["-d", path]).stdout
        let listed = readelf.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line -> String? in
            guard let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
        #expect(elf.neededLibraries == listed)
    }

    @Test func buildIDMatchesReadelf() async throws {
        let path = try await CLibrary.path()
        let id = try #require(try ELFFile(path: path).gnuBuildID)
        #expect(id.count == 40)  // SHA-1, ld's default
        #expect(id == (try await readelfBuildID(path)))
    }

    @Test func theBuildIDReadThroughTheProgramHeadersIsTheNoteSectionsOne() async throws {
        // The stage's look-up reads it this way, and compares it with what the section gave.
        let c = try await CLibrary.path()
        for path in [c, PackageBuild.example] {
            let id = try #require(try ELFFile.gnuBuildID(path: path))
            #expect(id == (try ELFFile(path: path).gnuBuildID))
            #expect(id == (try await readelfBuildID(path)))
        }
        let folder = Fixtures.temporaryDirectory("elf")
        let text = folder + "/not-elf.so"
        FileManager.default.createFile(atPath: text, contents: Data(repeating: 0x41, count: 4096))
        #expect(try ELFFile.gnuBuildID(path: text) == nil)
        // Cut inside its program header table: an error, never a read beyond the file.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: c))
        let cut = folder + "/cut.so"
        FileManager.default.createFile(atPath: cut, contents: bytes.prefix(80))
        #expect(throws: ELFError.self) { try ELFFile.gnuBuildID(path: cut) }
    }

    @Test func definedDynamicSymbols() async throws {
        let path = try await CLibrary.path()
        let elf = try ELFFile(path: path)
        let names = try elf.definedDynamicSymbols()
        #expect(names.contains("elf_test_exported"))
        #expect(names.contains("elf_test_data"))
        #expect(!names.contains("elf_test_hidden"))  // hidden: not in .dynsym
        #expect(!names.contains("cos"))  // undefined: needed from libm
        #expect(!names.contains("tessera_stamp_record"))
        #expect(try elf.countDefinedSymbols(withPrefix: "elf_test_") == 2)
        #expect(try elf.countDefinedSymbols(withPrefix: "$s10TesseraSDK") == 0)
        // Several prefixes in one pass: a symbol that two of them match is counted once.
        #expect(try elf.countDefinedSymbols(withAnyPrefixOf: ["elf_test_e", "elf_test_exp", "elf_test_d", "$s10TesseraSDK"]) == 2)
        #expect(try elf.countDefinedSymbols(withAnyPrefixOf: ["elf_test_data"]) == 1)
        #expect(try elf.countDefinedSymbols(withAnyPrefixOf: []) == 0)
        #expect(Set(names) == Set(try await nmDefinedSymbols(path)))
    }

    @Test func sections() async throws {
        let elf = try ELFFile(path: try await CLibrary.path())
        #expect(try elf.section(named: "no.such.section") == nil)
        #expect(elf.sectionHeader(named: ".dynsym")?.type == 11)
        #expect(elf.sectionHeader(named: ".dynamic")?.type == 6)
        #expect(try elf.section(named: ".bss") == [])  // NOBITS: nothing in the file
        let text = try #require(elf.sectionHeader(named: ".text"))
        #expect(text.offset > 0 && text.offset + text.size <= elf.fileSize)
        #expect(try elf.contents(of: text).count == text.size)
    }

    @Test func refusesFilesThatAreNotELF() throws {
        let path = temporaryPath("hello.txt")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "hello, world".write(toFile: path, atomically: true, encoding: .utf8)
        let error = try #require(elfError { _ = try ELFFile(path: path) })
        #expect(error.kind == .notELF)
        #expect(error.description == "not an ELF file: first bytes 68 65 6c 6c")

        try Data([0x7f, 0x45, 0x4c, 0x47, 0, 0, 0, 0]).write(to: URL(fileURLWithPath: path))
        #expect(elfError { _ = try ELFFile(path: path) }?.description == "not an ELF file: first bytes 7f 45 4c 47")
    }

    @Test func refusesEmptyMissingAndDirectories() throws {
        let path = temporaryPath("empty.so")
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        #expect(elfError { _ = try ELFFile(path: path) } == ELFError(.empty, "file is empty"))
        #expect(elfError { _ = try ELFFile(path: "/nonexistent/libNope.so") }?.description == "cannot open: No such file or directory")
        #expect(elfError { _ = try ELFFile(path: NSTemporaryDirectory()) }?.kind == .io)
    }

    @Test func refusesOtherClassesAndByteOrders() async throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try await CLibrary.path())))
        let path = temporaryPath("class.so")
        defer { try? FileManager.default.removeItem(atPath: path) }
        bytes[4] = 1  // ELFCLASS32
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(elfError { _ = try ELFFile(path: path) }?.description == "not a 64-bit little-endian ELF: class 1 (32-bit), data 1 (little-endian)")
        bytes[4] = 2
        bytes[5] = 2  // ELFDATA2MSB
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(elfError { _ = try ELFFile(path: path) }?.kind == .unsupported)
    }

    /// The library cut at every 97th byte: always an error (the section headers are at the end of
    /// the file, so every cut loses some), never a crash.
    @Test func truncatedLibraries() async throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try await CLibrary.path())))
        let path = temporaryPath("truncated.so")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var refused = 0
        for length in stride(from: 0, to: bytes.count, by: 97) {
            try Data(bytes[..<length]).write(to: URL(fileURLWithPath: path))
            let error = elfError { _ = try ELFFile(path: path) }
            #expect(error != nil, "cut at \(length) of \(bytes.count) bytes")
            if let error {
                #expect(error.kind == .truncated || error.kind == .empty, "cut at \(length): \(error)")
                refused += 1
            }
        }
        #expect(refused == (bytes.count + 96) / 97)
        // The message names both numbers.
        let cut = bytes.count / 2
        try Data(bytes[..<cut]).write(to: URL(fileURLWithPath: path))
        let message = try #require(elfError { _ = try ELFFile(path: path) }).description
        #expect(message.hasPrefix("truncated: "))
        #expect(message.hasSuffix("the file has \(cut) bytes"))
    }

    /// Random damage to the ELF header and section header table: each variant either reads or
    /// gives an ELFError from every accessor, and never crashes.
    @Test func corruptedHeadersNeverCrash() async throws {
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try await CLibrary.path())))
        let elf = try ELFFile(path: try await CLibrary.path())
        let tableStart = Int(original.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 0x28, as: UInt64.self) })
        let dynamic = try #require(elf.sectionHeader(named: ".dynamic"))
        let notes = try #require(elf.sectionHeader(named: ".note.gnu.build-id"))
        let path = temporaryPath("corrupt.so")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var generator = SplitMix64(seed: 97)
        var errors = 0
        for round in 0..<400 {
            var bytes = original
            for _ in 0..<(1 + round % 4) {
                let region: Range<Int> = switch round % 4 {
                case 0: 0..<64
                case 1: tableStart..<original.count
                case 2: dynamic.offset..<dynamic.offset + dynamic.size
                default: notes.offset..<notes.offset + notes.size
                }
                let at = region.lowerBound + Int(generator.next() % UInt64(region.count))
                bytes[at] = generator.next() % 3 == 0 ? 0xff : UInt8(truncatingIfNeeded: generator.next())
            }
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            if elfError({
                let damaged = try ELFFile(path: path)
                _ = try damaged.definedDynamicSymbols()
                for section in damaged.sections { _ = try damaged.contents(of: section) }
                if let stamp = try damaged.section(named: "tessera_stamp") { _ = try? PluginStamp(bytes: stamp) }
            }) != nil {
                errors += 1
            }
        }
        #expect(errors > 0)
    }

    @Test func fileChangedAfterOpening() async throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try await CLibrary.path())))
        let path = temporaryPath("changing.so")
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let elf = try ELFFile(path: path)
        try Data(bytes[..<(bytes.count - 100)]).write(to: URL(fileURLWithPath: path))
        let error = try #require(elfError { _ = try elf.section(named: "tessera_stamp") })
        #expect(error.kind == .changed)
        #expect(error.description == "the file changed while it was being checked: it had \(bytes.count) bytes, now \(bytes.count - 100)")
    }

    @Test func stampPatching() async throws {
        let source = try await CLibrary.path()
        let output = temporaryPath("patched.so")
        defer { try? FileManager.default.removeItem(atPath: output) }
        try PluginStamp.patched(file: source, to: output, sdkABIMajor: 2, sdkABIMinor: nil, toolchain: "clang 19.1.0")
        let stamp = try #require(try ELFFile(path: output).stamp())
        #expect(stamp.sdkABIMajor == 2)
        #expect(stamp.sdkABIMinor == 3)
        #expect(stamp.toolchain == "clang 19.1.0")
        // Only the stamp's bytes differ, and the source is untouched.
        let before = [UInt8](try Data(contentsOf: URL(fileURLWithPath: source)))
        let after = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
        let section = try #require(try ELFFile(path: source).sectionHeader(named: "tessera_stamp"))
        #expect(before.count == after.count)
        let changed = before.indices.filter { $0 < after.count && before[$0] != after[$0] }
        #expect(!changed.isEmpty && changed.allSatisfy { (section.offset..<section.offset + section.size).contains($0) })
        #expect(try ELFFile(path: source).stamp()?.sdkABIMajor == 7)
        #expect(FileManager.default.isExecutableFile(atPath: output))

        #expect(throws: StampPatchError.self) {
            try PluginStamp.patched(file: source, to: output, sdkABIMajor: nil, sdkABIMinor: nil,
                                    toolchain: String(repeating: "x", count: 120))
        }
    }

    // MARK: The package's own libraries

    @Test(.enabled(if: PackageBuild.hasExample)) func theExamplePlugin() async throws {
        let elf = try ELFFile(path: PackageBuild.example)
        let stamp = try #require(try elf.stamp())
        #expect(stamp.magic == PluginStamp.expectedMagic)
        #expect(stamp.recordSize == 152)
        #expect(stamp.sdkABIMajor == 1)
        #expect(stamp.toolchain.contains("github.com/swiftlang"))
        #expect(elf.neededLibraries.contains("libTesseraSDK.so"))
        #expect(elf.neededLibraries.contains("libswiftCore.so"))
        #expect(try elf.countDefinedSymbols(withPrefix: "$s10TesseraSDK") == 0)
        #expect(elf.gnuBuildID != nil)
        #expect(elf.gnuBuildID == (try await readelfBuildID(PackageBuild.example)))
    }

    @Test(.enabled(if: PackageBuild.hasSDK)) func theSDKDefinesItsSymbols() async throws {
        let elf = try ELFFile(path: PackageBuild.sdk)
        let count = try elf.countDefinedSymbols(withPrefix: "$s10TesseraSDK")
        #expect(count > 100)
        #expect(count == (try await nmDefinedSymbols(PackageBuild.sdk).filter { $0.hasPrefix("$s10TesseraSDK") }.count))
    }

    /// Reading a stamp must stay cheap: a loose bound for a debug build (the release figure is in
    /// the tens of microseconds).
    @Test func stampReadIsCheap() async throws {
        let path = PackageBuild.hasExample ? PackageBuild.example : try await CLibrary.path()
        var times: [UInt64] = []
        for _ in 0..<300 {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try ELFFile(path: path).stamp()
            times.append(DispatchTime.now().uptimeNanoseconds - start)
        }
        times.sort()
        let median = times[times.count / 2]
        #expect(median < 2_000_000, "median \(median) ns")
    }
}

// MARK: - PluginStamp

extension ELFFileTests {
    @Suite struct PluginStampTests {
        /// A stamp record: the header's fields, then `extra` appended words; `total` pads the section.
        static func record(magic: UInt32 = 0x5453_5354, size: UInt32? = nil, major: UInt32 = 1, minor: UInt32 = 2,
                           toolchain: String = "clang 21.0.0", extra: [UInt32] = [0, 0, 0, 0], total: Int? = nil) -> [UInt8] {
            func le(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * UInt32($0))) } }
            let name = Array(toolchain.utf8.prefix(120))
            var bytes = le(magic) + le(0) + le(major) + le(minor) + name + [UInt8](repeating: 0, count: 120 - name.count)
            bytes += extra.flatMap(le)
            let declared = size ?? UInt32(bytes.count)
            bytes.replaceSubrange(4..<8, with: le(declared))
            if let total, total > bytes.count { bytes += [UInt8](repeating: 0xEE, count: total - bytes.count) }
            return bytes
        }

        static func refusal(_ bytes: [UInt8]) -> String? {
            elfError { _ = try PluginStamp(bytes: bytes) }.map { $0.kind == .invalidStamp ? $0.description : "wrong kind: \($0)" }
        }

        @Test func parsesTheCurrentLayout() throws {
            let stamp = try PluginStamp(bytes: Self.record())
            #expect(stamp == PluginStamp(sdkABIMajor: 1, sdkABIMinor: 2, toolchain: "clang 21.0.0", recordSize: 152))
            #expect(stamp.magic == 0x5453_5354)
        }

        @Test func refusesAWrongMagic() {
            #expect(Self.refusal(Self.record(magic: 0x5453_5355)) == "invalid stamp: magic 0x54535355, expected 0x54535354 ('TSST')")
        }

        @Test func refusesADeclaredSizeSmallerThanItsFields() {
            #expect(Self.refusal(Self.record(size: 100)) == "invalid stamp: declared size 100 is smaller than the 136 bytes of its fields")
            #expect(Self.refusal(Self.record(size: 135)) != nil)
            #expect(Self.refusal(Self.record(size: 0)) != nil)
        }

        @Test func refusesADeclaredSizeLargerThanTheSection() {
            #expect(Self.refusal(Self.record(size: 200)) == "invalid stamp: declared size 200 is larger than its section (152 bytes)")
            #expect(Self.refusal(Array(Self.record().prefix(140))) != nil)
            #expect(Self.refusal([0x54, 0x53, 0x53]) == "invalid stamp: the section has 3 bytes, fewer than the 8 of its magic and size")
            #expect(Self.refusal([]) != nil)
        }

        @Test func refusesAnUnterminatedToolchain() {
            #expect(Self.refusal(Self.record(toolchain: String(repeating: "x", count: 120)))
                == "invalid stamp: the toolchain is not NUL-terminated within its 120 bytes")
        }

        /// A newer SDK appends fields: the record still parses, reading only what this host knows.
        @Test func parsesALargerNewerRecord() throws {
            let newer = Self.record(major: 1, minor: 9, toolchain: "clang 22", extra: [0, 0, 0, 0, 0xdead_beef, 0x1234_5678], total: 176)
            #expect(newer.count == 176)
            let stamp = try PluginStamp(bytes: newer)
            #expect(stamp.recordSize == 160)
            #expect(stamp.sdkABIMinor == 9)
            #expect(stamp.toolchain == "clang 22")
        }

        /// A minimal older record (no reserved words) parses, and bytes past its declared size are ignored.
        @Test func readsOnlyWithinTheDeclaredSize() throws {
            let minimal = Self.record(extra: [], total: 152)
            #expect(minimal.count == 152)
            let stamp = try PluginStamp(bytes: minimal)
            #expect(stamp.recordSize == 136)
            #expect(stamp.toolchain == "clang 21.0.0")
        }
    }
}
