import Glibc
import TesseraSystem

// Reads the parts of an ELF64 little-endian shared object the host checks before loading it (gate 1):
// the section table, one section's bytes (the stamp), DT_NEEDED/DT_SONAME, the defined dynamic
// symbols (the embedded-SDK lint) and the GNU build id. Nothing here maps or runs the file; every
// read is a bounded `pread` whose range was checked against the file size first.

/// Why a file could not be read as an ELF64 little-endian shared object, or why its stamp is invalid.
///
/// The ``description`` names the problem and the numbers involved, e.g.
/// `truncated: section headers end at byte 20480, the file has 8192 bytes`. It does not repeat the
/// path; callers prefix it.
public struct ELFError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The broad class of problem, for callers that branch on it.
    public enum Kind: Sendable, Hashable {
        /// The file could not be opened, examined or read (an `errno` problem).
        case io
        /// The file has no bytes.
        case empty
        /// The file does not start with the ELF magic.
        case notELF
        /// An ELF file, but not 64-bit little-endian version 1.
        case unsupported
        /// Something the headers describe lies beyond the end of the file.
        case truncated
        /// The headers are inconsistent (an index or offset that points nowhere, a bad entry size).
        case corrupt
        /// The file's size changed between reads.
        case changed
        /// The `tessera_stamp` record is invalid.
        case invalidStamp
    }

    /// The class of problem.
    public let kind: Kind
    /// The full message.
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    static func truncated(_ what: String, end: Int, fileSize: Int) -> ELFError {
        ELFError(.truncated, "truncated: \(what) \(what.hasSuffix("headers") ? "end" : "ends") at byte \(end), the file has \(fileSize) bytes")
    }

    static func overflowing(_ what: String, offset: UInt64, size: UInt64, fileSize: Int) -> ELFError {
        ELFError(.truncated, "truncated: \(what) (offset \(offset), size \(size)) does not fit in the file's \(fileSize) bytes")
    }

    static func errno(_ operation: String, _ code: Int32) -> ELFError {
        ELFError(.io, "\(operation): \(String(cString: strerror(code)))")
    }
}

/// An ELF64 little-endian shared object read from a file without loading it.
///
/// `init(path:)` reads the ELF header, the section header table and the section name table, checks
/// every section's extent against the file size, and reads the small sections behind
/// ``neededLibraries``, ``soname`` and ``gnuBuildID`` (`.dynamic`, its string table and
/// `.note.gnu.build-id`). Other sections are read on demand by ``section(named:)`` and
/// ``definedDynamicSymbols()``, which open the file again and refuse it if its size changed.
///
/// A truncated or corrupt file gives an ``ELFError``, never a crash or a read outside the file.
/// Only the section headers are used (not the program headers), which every linker writes for a
/// shared library; a file stripped of them has no sections here.
///
/// ```swift
/// let elf = try ELFFile(path: "libTesseraExample.so")
/// let stamp = try elf.section(named: "tessera_stamp").map(PluginStamp.init(bytes:))
/// let embedsSDK = try elf.countDefinedSymbols(withPrefix: "$s10TesseraSDK") > 0
/// ```
public struct ELFFile: Sendable {
    /// One entry of the section header table.
    public struct Section: Sendable, Hashable {
        /// The index in the section header table.
        public let index: Int
        /// The name from the section name table (empty if the file has none).
        public let name: String
        /// `sh_type`, e.g. 1 `SHT_PROGBITS`, 6 `SHT_DYNAMIC`, 7 `SHT_NOTE`, 8 `SHT_NOBITS`, 11 `SHT_DYNSYM`.
        public let type: UInt32
        /// `sh_flags`.
        public let flags: UInt64
        /// `sh_addr`: the address when loaded.
        public let address: UInt64
        /// `sh_offset`: where the contents start in the file.
        public let offset: Int
        /// `sh_size`: the size of the contents (for `SHT_NOBITS`, of the memory it takes when loaded).
        public let size: Int
        /// `sh_link`: for symbol and dynamic sections, the index of their string table.
        public let link: UInt32
        /// `sh_info`.
        public let info: UInt32
        /// `sh_addralign`.
        public let alignment: UInt64
        /// `sh_entsize`: the size of one entry, for tables.
        public let entrySize: Int

        /// Whether the section has bytes in the file (everything but `SHT_NULL` and `SHT_NOBITS`).
        public var hasContents: Bool { type != ELFConstant.shtNull && type != ELFConstant.shtNobits }
    }

    /// The file read.
    public let path: String
    /// Its size in bytes when it was opened.
    public let fileSize: Int
    /// `e_type`: 3 (`ET_DYN`) for shared objects and position-independent executables.
    public let fileType: UInt16
    /// `e_machine`: 62 (`EM_X86_64`), 183 (`EM_AARCH64`), ...
    public let machine: UInt16
    /// The section header table, in file order.
    public let sections: [Section]
    /// The `DT_NEEDED` entries of the dynamic section, in order (e.g. `libTesseraSDK.so`).
    public let neededLibraries: [String]
    /// The `DT_SONAME` entry, if any. (SwiftPM does not set one.)
    public let soname: String?
    /// The `NT_GNU_BUILD_ID` note of `.note.gnu.build-id` in lowercase hex, as `readelf -n` prints it.
    public let gnuBuildID: String?

    /// Reads the headers of the ELF file at `path`.
    ///
    /// - Throws: ``ELFError`` if the file cannot be read, is empty, is not an ELF64 little-endian
    ///   file, or if any header, section, dynamic entry or note lies outside the file or is inconsistent.
    public init(path: String) throws(ELFError) {
        try self.init(file: BoundedFile(path: path), path: path, memory: nil)
    }

    /// Reads the headers from `bytes`, the contents of the file at `path` already in memory (the
    /// host's staged copy, just written from them): no file is opened again.
    public init(bytes: [UInt8], path: String) throws(ELFError) {
        try self.init(contents: LibraryBytes(bytes), path: path)
    }

    /// Reads the headers from `contents`, the file at `path` held in memory (a staged copy, mapped).
    public init(contents: LibraryBytes, path: String) throws(ELFError) {
        try self.init(file: BoundedFile(memory: contents), path: path, memory: contents)
    }

    /// The file's contents when it was read from memory; sections are then read from here.
    private let memory: LibraryBytes?

    private init(file: borrowing BoundedFile, path: String, memory: LibraryBytes?) throws(ELFError) {
        self.memory = memory
        self.path = path
        fileSize = file.size

        // The identification bytes first, so a short non-ELF file is reported as "not an ELF file".
        let header = try file.read(at: 0, count: min(ELFConstant.headerSize, file.size), "ELF header")
        let magic: [UInt8] = [0x7f, 0x45, 0x4c, 0x46]
        let prefix = Array(header.prefix(4))
        guard prefix == Array(magic.prefix(prefix.count)) else {
            throw ELFError(.notELF, "not an ELF file: first bytes \(ELFFile.hexBytes(prefix, separator: " "))")
        }
        guard header.count >= 6 else {
            throw ELFError.truncated("ELF header", end: ELFConstant.headerSize, fileSize: file.size)
        }
        guard header[4] == 2, header[5] == 1 else {
            let bits = header[4] == 1 ? "32-bit" : header[4] == 2 ? "64-bit" : "unknown"
            let order = header[5] == 1 ? "little-endian" : header[5] == 2 ? "big-endian" : "unknown"
            throw ELFError(.unsupported, "not a 64-bit little-endian ELF: class \(header[4]) (\(bits)), data \(header[5]) (\(order))")
        }
        guard header.count == ELFConstant.headerSize else {
            throw ELFError.truncated("ELF header", end: ELFConstant.headerSize, fileSize: file.size)
        }
        guard header[6] == 1 else {
            throw ELFError(.unsupported, "unsupported ELF version \(header[6]), expected 1")
        }
        fileType = header.u16(at: 0x10)
        machine = header.u16(at: 0x12)

        let table = try ELFFile.readSectionTable(header: header, file: file)
        sections = table
        (neededLibraries, soname) = try ELFFile.readDynamic(sections: table, file: file)
        if let notes = table.first(where: { $0.name == ".note.gnu.build-id" && $0.type == ELFConstant.shtNote }) {
            gnuBuildID = try ELFFile.buildID(in: file.read(at: notes.offset, count: notes.size, "section \(notes.name)"),
                                             alignment: notes.alignment, where: notes.name)
        } else {
            gnuBuildID = nil
        }
    }

    /// The first section called `name`, if any.
    public func sectionHeader(named name: String) -> Section? {
        sections.first { $0.name == name }
    }

    /// The contents of the first section called `name`, or `nil` if the file has no such section.
    ///
    /// A section without bytes in the file (`SHT_NOBITS`, such as `.bss`) gives an empty array.
    /// - Throws: ``ELFError`` if the file can no longer be read or its size changed since `init`.
    public func section(named name: String) throws(ELFError) -> [UInt8]? {
        guard let header = sectionHeader(named: name) else { return nil }
        return try contents(of: header)
    }

    /// The contents of `section`, read from the file again.
    public func contents(of section: Section) throws(ELFError) -> [UInt8] {
        guard section.hasContents, section.size > 0 else { return [] }
        let file = try reopen()
        return try file.read(at: section.offset, count: section.size, "section \(section.name)")
    }

    /// The stamp record in the `tessera_stamp` section, or `nil` if the file has no such section.
    public func stamp() throws(ELFError) -> PluginStamp? {
        guard let bytes = try section(named: PluginStamp.sectionName) else { return nil }
        return try PluginStamp(bytes: bytes)
    }

    /// The names of the symbols the dynamic symbol table (`.dynsym`) defines, i.e. whose
    /// `st_shndx` is not `SHN_UNDEF`, in table order. Empty if the file has no dynamic symbols.
    public func definedDynamicSymbols() throws(ELFError) -> [String] {
        var names: [String] = []
        try forEachDefinedDynamicSymbol { table, range in
            names.append(String(decoding: table[range], as: UTF8.self))
        }
        return names
    }

    /// How many defined dynamic symbols start with `prefix` (compared as UTF-8 bytes).
    ///
    /// Swift mangles the symbols of module `TesseraSDK` as `$s10TesseraSDK…`: a plugin that defines
    /// any of them carries its own copy of the SDK, and no cast across the boundary would work.
    public func countDefinedSymbols(withPrefix prefix: String) throws(ELFError) -> Int {
        try countDefinedSymbols(withAnyPrefixOf: [prefix])
    }

    /// The number of defined dynamic symbols whose name starts with any of `prefixes`, each symbol
    /// counted once, in one pass over `.dynsym` (gate 1's lint asks for several names at once).
    public func countDefinedSymbols(withAnyPrefixOf prefixes: [String]) throws(ELFError) -> Int {
        let wanted = prefixes.map { Array($0.utf8) }
        var count = 0
        try forEachDefinedDynamicSymbol { table, range in
            let name = table[range]
            if wanted.contains(where: { name.count >= $0.count && name.prefix($0.count).elementsEqual($0) }) {
                count += 1
            }
        }
        return count
    }

    // MARK: - Reading

    private func reopen() throws(ELFError) -> BoundedFile {
        if let memory { return try BoundedFile(memory: memory) }
        let file = try BoundedFile(path: path)
        guard file.size == fileSize else {
            throw ELFError(.changed, "the file changed while it was being checked: it had \(fileSize) bytes, now \(file.size)")
        }
        return file
    }

    /// Calls `body` with the string table and the name's byte range for each defined `.dynsym` entry.
    private func forEachDefinedDynamicSymbol(_ body: ([UInt8], Range<Int>) -> Void) throws(ELFError) {
        guard let symbols = sections.first(where: { $0.type == ELFConstant.shtDynsym }) else { return }
        let entrySize = symbols.entrySize == 0 ? ELFConstant.symbolSize : symbols.entrySize
        guard entrySize >= ELFConstant.symbolSize else {
            throw ELFError(.corrupt, "corrupt: \(symbols.name) has entries of \(entrySize) bytes, expected \(ELFConstant.symbolSize)")
        }
        let strings = try ELFFile.linkedStringTable(of: symbols, in: sections)
        let file = try reopen()
        let table = try file.read(at: symbols.offset, count: symbols.size, "section \(symbols.name)")
        let names = try file.read(at: strings.offset, count: strings.size, "section \(strings.name)")
        let count = table.count / entrySize
        guard count > 1 else { return }
        for i in 1..<count {  // entry 0 is the reserved null symbol
            let base = i * entrySize
            let shndx = table.u16(at: base + 6)
            guard shndx != ELFConstant.shnUndef else { continue }
            let nameOffset = Int(table.u32(at: base))
            guard let range = ELFFile.cStringRange(in: names, at: nameOffset) else {
                throw ELFError(.corrupt, "corrupt: symbol \(i) of \(symbols.name) has name offset \(nameOffset), outside \(strings.name) (\(names.count) bytes) or unterminated")
            }
            if !range.isEmpty { body(names, range) }
        }
    }

    private static func readSectionTable(header: [UInt8], file: borrowing BoundedFile) throws(ELFError) -> [Section] {
        let tableOffset = header.u64(at: 0x28)
        let entrySize = Int(header.u16(at: 0x3A))
        var count = Int(header.u16(at: 0x3C))
        var namesIndex = Int(header.u16(at: 0x3E))
        guard tableOffset != 0 else { return [] }
        guard entrySize >= ELFConstant.sectionHeaderSize else {
            throw ELFError(.corrupt, "corrupt: section header entries are \(entrySize) bytes, expected \(ELFConstant.sectionHeaderSize)")
        }
        guard tableOffset <= UInt64(file.size) else {
            throw overflowingOrTruncated("section headers", offset: tableOffset, size: UInt64(entrySize), fileSize: file.size)
        }
        let start = Int(tableOffset)
        // Extended numbering: with 0xff00 or more sections, the real count and name table index live in section 0.
        if count == 0 || namesIndex == ELFConstant.shnXindex {
            let first = try file.read(at: start, count: ELFConstant.sectionHeaderSize, "section header 0")
            if count == 0 {
                let extended = first.u64(at: 0x20)
                guard extended <= UInt64(file.size) else {
                    throw ELFError(.corrupt, "corrupt: extended section count \(extended) is larger than the file")
                }
                count = Int(extended)
            }
            if namesIndex == ELFConstant.shnXindex { namesIndex = Int(first.u32(at: 0x28)) }
        }
        guard count > 0 else { return [] }
        let (tableSize, o1) = count.multipliedReportingOverflow(by: entrySize)
        let (tableEnd, o2) = start.addingReportingOverflow(tableSize)
        guard !o1, !o2, tableEnd <= file.size else {
            throw overflowingOrTruncated("section headers", offset: tableOffset, size: UInt64(tableSize), fileSize: file.size)
        }
        let raw = try file.read(at: start, count: tableSize, "section headers")

        struct Raw { var nameOffset: Int, type: UInt32, flags: UInt64, address: UInt64, offset: UInt64, size: UInt64
                     var link: UInt32, info: UInt32, alignment: UInt64, entrySize: UInt64 }
        var entries: [Raw] = []
        entries.reserveCapacity(count)
        for i in 0..<count {
            let b = i * entrySize
            entries.append(Raw(nameOffset: Int(raw.u32(at: b)), type: raw.u32(at: b + 4), flags: raw.u64(at: b + 8),
                               address: raw.u64(at: b + 0x10), offset: raw.u64(at: b + 0x18), size: raw.u64(at: b + 0x20),
                               link: raw.u32(at: b + 0x28), info: raw.u32(at: b + 0x2C), alignment: raw.u64(at: b + 0x30),
                               entrySize: raw.u64(at: b + 0x38)))
        }

        // Each section's extent, then the names.
        func check(_ e: Raw, _ label: @autoclosure () -> String) throws(ELFError) {
            guard e.type != ELFConstant.shtNull, e.type != ELFConstant.shtNobits, e.size > 0 else { return }
            let (end, overflow) = e.offset.addingReportingOverflow(e.size)
            guard !overflow, end <= UInt64(file.size) else {
                throw overflowingOrTruncated(label(), offset: e.offset, size: e.size, fileSize: file.size)
            }
        }
        var names: [UInt8] = []
        if namesIndex != ELFConstant.shnUndef {
            guard namesIndex < count else {
                throw ELFError(.corrupt, "corrupt: the section name table is section \(namesIndex), but there are \(count) sections")
            }
            let table = entries[namesIndex]
            guard table.type == ELFConstant.shtStrtab else {
                throw ELFError(.corrupt, "corrupt: the section name table (section \(namesIndex)) has type \(table.type), expected 3 (SHT_STRTAB)")
            }
            try check(table, "the section name table (section \(namesIndex))")
            names = try file.read(at: Int(table.offset), count: Int(table.size), "the section name table")
        }
        var result: [Section] = []
        result.reserveCapacity(count)
        for (i, e) in entries.enumerated() {
            var name = ""
            if namesIndex != ELFConstant.shnUndef {
                guard let range = cStringRange(in: names, at: e.nameOffset) else {
                    throw ELFError(.corrupt, "corrupt: section \(i) has name offset \(e.nameOffset), outside the section name table (\(names.count) bytes) or unterminated")
                }
                name = String(decoding: names[range], as: UTF8.self)
            }
            try check(e, "section \(name.isEmpty ? "\(i)" : name)")
            guard e.entrySize <= UInt64(Int32.max), e.type == ELFConstant.shtNobits || e.size <= UInt64(file.size) else {
                throw ELFError(.corrupt, "corrupt: section \(i) has size \(e.size) and entry size \(e.entrySize), beyond the file's \(file.size) bytes")
            }
            // A NOBITS section's size is memory, not file bytes; clamp so that it always fits an Int.
            let size = e.type == ELFConstant.shtNobits ? Int(min(e.size, UInt64(Int.max))) : Int(e.size)
            let offset = Int(min(e.offset, UInt64(Int.max)))
            result.append(Section(index: i, name: name, type: e.type, flags: e.flags, address: e.address, offset: offset,
                                  size: size, link: e.link, info: e.info, alignment: e.alignment, entrySize: Int(e.entrySize)))
        }
        return result
    }

    private static func overflowingOrTruncated(_ what: String, offset: UInt64, size: UInt64, fileSize: Int) -> ELFError {
        let (end, overflow) = offset.addingReportingOverflow(size)
        if !overflow, end <= UInt64(Int.max) { return .truncated(what, end: Int(end), fileSize: fileSize) }
        return .overflowing(what, offset: offset, size: size, fileSize: fileSize)
    }

    /// The string table `section.link` names, checked to be one.
    private static func linkedStringTable(of section: Section, in sections: [Section]) throws(ELFError) -> Section {
        let index = Int(section.link)
        guard index > 0, index < sections.count, sections[index].type == ELFConstant.shtStrtab else {
            throw ELFError(.corrupt, "corrupt: \(section.name.isEmpty ? "section \(section.index)" : section.name) links to section \(section.link), which is not a string table")
        }
        return sections[index]
    }

    /// `DT_NEEDED` and `DT_SONAME` from the `SHT_DYNAMIC` section.
    private static func readDynamic(sections: [Section], file: borrowing BoundedFile) throws(ELFError) -> ([String], String?) {
        guard let dynamic = sections.first(where: { $0.type == ELFConstant.shtDynamic }), dynamic.size > 0 else { return ([], nil) }
        let strings = try linkedStringTable(of: dynamic, in: sections)
        let entries = try file.read(at: dynamic.offset, count: dynamic.size, "section \(dynamic.name)")
        var neededOffsets: [Int] = []
        var sonameOffset: Int?
        for i in 0..<(entries.count / ELFConstant.dynamicEntrySize) {
            let tag = entries.u64(at: i * ELFConstant.dynamicEntrySize)
            let value = entries.u64(at: i * ELFConstant.dynamicEntrySize + 8)
            if tag == ELFConstant.dtNull { break }
            guard tag == ELFConstant.dtNeeded || tag == ELFConstant.dtSoname else { continue }
            guard value < UInt64(strings.size) else {
                throw ELFError(.corrupt, "corrupt: dynamic entry \(i) (tag \(tag)) has string offset \(value), outside \(strings.name) (\(strings.size) bytes)")
            }
            if tag == ELFConstant.dtNeeded { neededOffsets.append(Int(value)) } else { sonameOffset = Int(value) }
        }
        guard !neededOffsets.isEmpty || sonameOffset != nil else { return ([], nil) }
        let table = try file.read(at: strings.offset, count: strings.size, "section \(strings.name)")
        func string(_ offset: Int) throws(ELFError) -> String {
            guard let range = cStringRange(in: table, at: offset) else {
                throw ELFError(.corrupt, "corrupt: the string at offset \(offset) of \(strings.name) is not NUL-terminated")
            }
            return String(decoding: table[range], as: UTF8.self)
        }
        var needed: [String] = []
        for offset in neededOffsets { needed.append(try string(offset)) }
        return (needed, try sonameOffset.map { (o) throws(ELFError) in try string(o) })
    }

    /// The descriptor of the first `NT_GNU_BUILD_ID` note owned by `GNU`, in hex; `notes` is a
    /// note section or segment, `place` names it in errors.
    private static func buildID(in notes: [UInt8], alignment: UInt64, where place: String) throws(ELFError) -> String? {
        let align = alignment == 8 ? 8 : 4
        func aligned(_ n: Int) -> Int { (n + align - 1) & ~(align - 1) }
        var position = 0
        while position + 12 <= notes.count {
            let nameSize = Int(notes.u32(at: position))
            let descSize = Int(notes.u32(at: position + 4))
            let type = notes.u32(at: position + 8)
            let nameStart = position + 12
            let descStart = nameStart + aligned(nameSize)
            let end = descStart + aligned(descSize)
            guard descStart + descSize <= notes.count else {
                throw ELFError(.corrupt, "corrupt: the note at offset \(position) of \(place) declares \(nameSize) name and \(descSize) descriptor bytes, beyond the section's \(notes.count) bytes")
            }
            if type == ELFConstant.ntGNUBuildID, nameSize == 4, notes[nameStart..<nameStart + 4].elementsEqual([0x47, 0x4e, 0x55, 0]) {
                return hexBytes(notes[descStart..<descStart + descSize])
            }
            position = end
        }
        return nil
    }

    /// The GNU build ID of the ELF file at `path`, found through its program headers: the ELF
    /// header, the program header table and the `PT_NOTE` segments, where ``init(path:)`` reads
    /// every section header and the dynamic section.
    ///
    /// For the stage's look-up of a build it staged before (``GenerationStore/stage(_:)``), which
    /// compares it with the ID ``gnuBuildID`` gave when the build was staged: the linker puts
    /// `.note.gnu.build-id` in a `PT_NOTE` segment, so both read the same note. `nil` if the file
    /// is not an ELF64 little-endian file or has no such note; a file where the two readings
    /// differ is only staged in full again.
    public static func gnuBuildID(path: String) throws(ELFError) -> String? {
        try gnuBuildID(in: BoundedFile(path: path))
    }

    /// ``gnuBuildID(path:)`` of a file the caller holds open, `size` bytes long.
    static func gnuBuildID(descriptor: Int32, size: Int) throws(ELFError) -> String? {
        try gnuBuildID(in: BoundedFile(borrowing: descriptor, size: size))
    }

    /// The linker puts the ELF header, the program headers and the build ID's note at the start of
    /// the file, so its first kilobyte is read at once and the three are taken from it; only what
    /// lies beyond it is read on its own.
    private static func gnuBuildID(in file: borrowing BoundedFile) throws(ELFError) -> String? {
        let head = try file.read(at: 0, count: min(1024, file.size), "first kilobyte")
        func bytes(at offset: Int, count: Int, _ what: String) throws(ELFError) -> [UInt8] {
            if offset >= 0, count >= 0, offset <= head.count - count { return Array(head[offset..<offset + count]) }
            return try file.read(at: offset, count: count, what)
        }
        guard head.count >= ELFConstant.headerSize, head.starts(with: [0x7f, 0x45, 0x4c, 0x46, 2, 1]) else { return nil }
        let tableOffset = head.u64(at: 0x20), entrySize = Int(head.u16(at: 0x36)), count = Int(head.u16(at: 0x38))
        guard entrySize >= ELFConstant.programHeaderSize, count > 0, tableOffset <= UInt64(file.size) else { return nil }
        let table = try bytes(at: Int(tableOffset), count: entrySize * count, "program header table")
        for i in 0..<count {
            let entry = i * entrySize
            guard table.u32(at: entry) == ELFConstant.ptNote else { continue }
            let offset = table.u64(at: entry + 8), size = table.u64(at: entry + 32), alignment = table.u64(at: entry + 48)
            guard size <= ELFConstant.largestNoteSegment, offset <= UInt64(file.size) else { continue }
            let notes = try bytes(at: Int(offset), count: Int(size), "note segment \(i)")
            if let id = try buildID(in: notes, alignment: alignment, where: "note segment \(i)") { return id }
        }
        return nil
    }

    /// The range of the NUL-terminated string at `offset` in `table`, without its NUL; `nil` if
    /// `offset` is outside the table or the string has no terminator.
    static func cStringRange(in table: [UInt8], at offset: Int) -> Range<Int>? {
        guard offset >= 0, offset < table.count else { return nil }
        guard let end = table[offset...].firstIndex(of: 0) else { return nil }
        return offset..<end
    }

    static func hexBytes(_ bytes: some Collection<UInt8>, separator: String = "") -> String {
        // One buffer of UTF-8, not a String per byte joined: the stage look-up formats a build ID
        // on every load.
        let digits = Array("0123456789abcdef".utf8), between = Array(separator.utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * (2 + between.count))
        for (i, byte) in bytes.enumerated() {
            if i > 0 { text.append(contentsOf: between) }
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xf)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// The `tessera_stamp_t` record compiled into every plugin (see `tessera_abi.h`), read from the
/// bytes of its `tessera_stamp` section.
///
/// The record is append-only: it starts with its own size, and a reader never reads past the size
/// the writer declared. So a stamp written by a newer SDK, with fields appended, still parses here;
/// one whose declared size does not cover the fields read here does not.
public struct PluginStamp: Sendable, Hashable {
    /// The ELF section that holds the stamp.
    public static let sectionName = "tessera_stamp"
    /// `TESSERA_STAMP_MAGIC`: 'TSST' little-endian.
    public static let expectedMagic: UInt32 = 0x5453_5354
    /// The capacity of `toolchain`, including its NUL (`TESSERA_TOOLCHAIN_MAX`).
    public static let toolchainCapacity = 120
    /// The bytes of the fields read here: magic, size, major, minor and the toolchain.
    public static let minimumSize = 16 + toolchainCapacity
    /// `sizeof(tessera_stamp_t)` of this SDK, reserved words included.
    public static let currentSize = minimumSize + 16

    /// `magic`, always ``expectedMagic`` once parsed.
    public let magic: UInt32
    /// `size`: the writer's `sizeof(tessera_stamp_t)`.
    public let recordSize: UInt32
    /// The SDK ABI major the plugin was compiled against.
    public let sdkABIMajor: UInt32
    /// The SDK ABI minor the plugin was compiled against.
    public let sdkABIMinor: UInt32
    /// The compiler identity (clang's `__clang_version__` of the Swift toolchain), without its NUL.
    public let toolchain: String
    /// A C-ABI plugin's C ABI version (`reserved[0]` and `reserved[1]`, `tessera_plugin.h`); 0 in
    /// a Swift plugin's stamp.
    public let cABIMajor: UInt32
    public let cABIMinor: UInt32

    /// Whether the stamp is a C-ABI plugin's: it names no compiler and carries a C ABI version.
    public var isCABI: Bool { toolchain.isEmpty && cABIMajor != 0 }

    /// The ABI the library is built against, as a person reads it: `SDK ABI 1.10` or `C ABI 1.0`.
    public var abiDescription: String {
        isCABI ? "C ABI \(cABIMajor).\(cABIMinor)" : "SDK ABI \(sdkABIMajor).\(sdkABIMinor)"
    }

    /// A stamp with the given values, as a plugin built by this SDK would carry.
    public init(sdkABIMajor: UInt32, sdkABIMinor: UInt32, toolchain: String, recordSize: UInt32 = UInt32(PluginStamp.currentSize),
                cABIMajor: UInt32 = 0, cABIMinor: UInt32 = 0) {
        magic = PluginStamp.expectedMagic
        self.recordSize = recordSize
        self.sdkABIMajor = sdkABIMajor
        self.sdkABIMinor = sdkABIMinor
        self.toolchain = toolchain
        self.cABIMajor = cABIMajor
        self.cABIMinor = cABIMinor
    }

    /// Parses the record at the start of `bytes` (the contents of the `tessera_stamp` section).
    ///
    /// - Throws: ``ELFError`` of kind ``ELFError/Kind/invalidStamp`` if the magic is wrong, if the
    ///   declared size is smaller than the fields read here or larger than `bytes`, or if the
    ///   toolchain is not NUL-terminated.
    public init(bytes: [UInt8]) throws(ELFError) {
        guard bytes.count >= 8 else {
            throw ELFError(.invalidStamp, "invalid stamp: the section has \(bytes.count) bytes, fewer than the 8 of its magic and size")
        }
        let magic = bytes.u32(at: 0)
        guard magic == PluginStamp.expectedMagic else {
            throw ELFError(.invalidStamp, "invalid stamp: magic 0x\(String(magic, radix: 16)), expected 0x\(String(PluginStamp.expectedMagic, radix: 16)) ('TSST')")
        }
        let size = bytes.u32(at: 4)
        guard size >= UInt32(PluginStamp.minimumSize) else {
            throw ELFError(.invalidStamp, "invalid stamp: declared size \(size) is smaller than the \(PluginStamp.minimumSize) bytes of its fields")
        }
        guard Int(size) <= bytes.count else {
            throw ELFError(.invalidStamp, "invalid stamp: declared size \(size) is larger than its section (\(bytes.count) bytes)")
        }
        let field = bytes[16..<PluginStamp.minimumSize]
        guard let end = field.firstIndex(of: 0) else {
            throw ELFError(.invalidStamp, "invalid stamp: the toolchain is not NUL-terminated within its \(PluginStamp.toolchainCapacity) bytes")
        }
        self.magic = magic
        recordSize = size
        sdkABIMajor = bytes.u32(at: 8)
        sdkABIMinor = bytes.u32(at: 12)
        toolchain = String(decoding: bytes[16..<end], as: UTF8.self)
        // The reserved words came with the first stamp; a record too short for them has none set.
        let hasReserved = size >= UInt32(PluginStamp.currentSize)
        cABIMajor = hasReserved ? bytes.u32(at: PluginStamp.minimumSize) : 0
        cABIMinor = hasReserved ? bytes.u32(at: PluginStamp.minimumSize + 4) : 0
    }
}

// MARK: - Internals

enum ELFConstant {
    static let headerSize = 64
    static let sectionHeaderSize = 64
    static let symbolSize = 24
    static let dynamicEntrySize = 16
    static let shtNull: UInt32 = 0
    static let shtStrtab: UInt32 = 3
    static let shtDynamic: UInt32 = 6
    static let shtNote: UInt32 = 7
    static let shtNobits: UInt32 = 8
    static let shtDynsym: UInt32 = 11
    static let shnUndef = 0
    static let shnXindex = 0xffff
    static let dtNull: UInt64 = 0
    static let dtNeeded: UInt64 = 1
    static let dtSoname: UInt64 = 14
    static let ntGNUBuildID: UInt32 = 3
    static let ptNote: UInt32 = 4
    /// `sizeof(Elf64_Phdr)`.
    static let programHeaderSize = 56
    /// Notes beyond this are not read for a build ID (a build ID note is 36 bytes).
    static let largestNoteSegment: UInt64 = 64 * 1024
}

/// An open file whose reads are checked against its size. Closed when it goes out of scope.
struct BoundedFile: ~Copyable {
    let descriptor: Int32
    let size: Int
    /// The contents, when they are in memory already (no descriptor then).
    let memory: LibraryBytes?
    /// Whether the descriptor is closed with this value (it was opened here).
    private let ownsDescriptor: Bool

    init(memory bytes: LibraryBytes) throws(ELFError) {
        guard bytes.count > 0 else { throw ELFError(.empty, "file is empty") }
        descriptor = -1
        size = bytes.count
        memory = bytes
        ownsDescriptor = false
    }

    /// A file the caller holds open and closes, `size` bytes long by its `fstat`.
    init(borrowing descriptor: Int32, size: Int) throws(ELFError) {
        guard size > 0 else { throw ELFError(.empty, "file is empty") }
        self.descriptor = descriptor
        self.size = size
        memory = nil
        ownsDescriptor = false
    }

    init(path: String) throws(ELFError) {
        let (fd, info): (Int32, stat)
        switch RegularFile.open(path) {
        case .success(let opened): (fd, info) = opened
        case .failure(let error): throw ELFError(.io, error.reason)
        }
        guard info.st_size > 0 else {
            close(fd)
            throw ELFError(.empty, "file is empty")
        }
        descriptor = fd
        size = Int(info.st_size)
        memory = nil
        ownsDescriptor = true
    }

    deinit { if ownsDescriptor { close(descriptor) } }

    /// `count` bytes at `offset`; throws if they lie beyond the file or cannot all be read.
    func read(at offset: Int, count: Int, _ what: @autoclosure () -> String) throws(ELFError) -> [UInt8] {
        let (end, overflow) = offset.addingReportingOverflow(count)
        guard offset >= 0, count >= 0, !overflow, end <= size else {
            throw overflow ? ELFError.overflowing(what(), offset: UInt64(clamping: offset), size: UInt64(clamping: count), fileSize: size)
                           : ELFError.truncated(what(), end: end, fileSize: size)
        }
        guard count > 0 else { return [] }
        if let memory { return memory.copy(offset..<end) }
        var failure: Int32 = 0
        var done = 0
        let fd = descriptor
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            do { done = try SystemCall.readFully(fd, into: UnsafeMutableRawBufferPointer(buffer), at: Int64(offset)) } catch let error as SystemCallError {
                failure = error.errno
            } catch {
                failure = EIO
            }
            initialized = done
        }
        if failure != 0 { throw ELFError.errno("cannot read \(what()) at byte \(offset + done)", failure) }
        guard done == count else {
            throw ELFError(.changed, "truncated while reading: \(what()) ends at byte \(end), but the file ended at byte \(offset + done)")
        }
        return bytes
    }
}

extension Array where Element == UInt8 {
    // Callers check the range first; the precondition turns a bug into a trap, never an
    // out-of-bounds read.
    @inline(__always)
    func littleEndian<T: FixedWidthInteger>(at offset: Int, as: T.Type) -> T {
        precondition(offset >= 0 && offset + MemoryLayout<T>.size <= count, "ELF read out of bounds")
        return withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
    }

    func u16(at offset: Int) -> UInt16 { littleEndian(at: offset, as: UInt16.self) }
    func u32(at offset: Int) -> UInt32 { littleEndian(at: offset, as: UInt32.self) }
    func u64(at offset: Int) -> UInt64 { littleEndian(at: offset, as: UInt64.self) }
}
