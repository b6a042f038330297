/// What gate 1 reads from a library's ELF file: the facts its checks judge, and nothing it judges
/// them against (the host, the manifest).
///
/// Reading them means parsing the section table, the dynamic section, the stamp section and the
/// dynamic symbol table: about a tenth of a plugin's load. They depend on the file's bytes alone,
/// so a build is read once, when it is staged in full, and the stage index keeps them beside the
/// content address; a host that starts again with the same build judges what the index kept
/// without opening the staged copy (``GenerationStore/stage(_:)``).
public struct LibraryFacts: Sendable, Hashable {
    /// The bytes of the `tessera_stamp` section, or `nil` if the file has none.
    public let stampSection: [UInt8]?
    /// How many of the SDK's core type descriptors (``FileGate/sdkTypeDescriptors``) the file
    /// defines: more than none means it carries its own copy of the SDK.
    public let embeddedSDKTypes: Int
    /// Whether the file names the shared SDK, `libTesseraSDK.so`, among its `DT_NEEDED` entries.
    public let linksSharedSDK: Bool
    /// Whether the file names the shared Swift runtime, `libswiftCore.so`, among them (a plugin
    /// built with `-static-stdlib` does not).
    public let linksSharedSwiftRuntime: Bool
    /// The linker's build ID (`NT_GNU_BUILD_ID`), when present.
    public let buildID: String?
    /// The file's size in bytes.
    public let size: Int

    /// The facts, as given (a stage index entry).
    init(stampSection: [UInt8]?, embeddedSDKTypes: Int, linksSharedSDK: Bool, linksSharedSwiftRuntime: Bool, buildID: String?, size: Int) {
        self.stampSection = stampSection
        self.embeddedSDKTypes = embeddedSDKTypes
        self.linksSharedSDK = linksSharedSDK
        self.linksSharedSwiftRuntime = linksSharedSwiftRuntime
        self.buildID = buildID
        self.size = size
    }

    /// Reads the facts of the ELF file at `path`.
    public init(path: String) throws(GateRefusal) {
        let elf: ELFFile
        do { elf = try ELFFile(path: path) } catch { throw Self.notELF(path, error) }
        try self.init(elf)
    }

    /// Reads the facts from `contents`, the file at `path` held in memory (a staged copy, mapped).
    public init(contents: LibraryBytes, path: String) throws(GateRefusal) {
        let elf: ELFFile
        do { elf = try ELFFile(contents: contents, path: path) } catch { throw Self.notELF(path, error) }
        try self.init(elf)
    }

    /// Reads the facts from a parsed file; a section or table that cannot be read is gate 1's
    /// refusal of the file.
    public init(_ elf: ELFFile) throws(GateRefusal) {
        do { stampSection = try elf.section(named: PluginStamp.sectionName) } catch {
            throw GateRefusal(gate: 1, field: "stamp", expected: "a readable tessera_stamp section", found: "\(error)")
        }
        do { embeddedSDKTypes = try elf.countDefinedSymbols(withAnyPrefixOf: FileGate.sdkTypeDescriptors) } catch {
            throw GateRefusal(gate: 1, field: "link", expected: "a readable dynamic symbol table", found: "\(error)")
        }
        linksSharedSDK = elf.neededLibraries.contains("libTesseraSDK.so")
        linksSharedSwiftRuntime = elf.neededLibraries.contains("libswiftCore.so")
        buildID = elf.gnuBuildID
        size = elf.fileSize
    }

    private static func notELF(_ path: String, _ error: ELFError) -> GateRefusal {
        GateRefusal(gate: 1, field: "library", expected: "a 64-bit ELF shared library", found: "\(path): \(error)")
    }
}
