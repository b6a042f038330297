import Foundation
import TesseraLoader

/// A stamp could not be patched.
public struct StampPatchError: Error, CustomStringConvertible {
    public let description: String
    public init(description: String) { self.description = description }
}

extension PluginStamp {
    /// Copies the library at `file` to `to` and rewrites the given fields of its `tessera_stamp`
    /// record in place (the other bytes are left as they are; `nil` keeps a field).
    ///
    /// Makes "built for SDK 2.0" or "built by another compiler" libraries for tests without such a
    /// build. The record is found through the section table, not by searching for the magic, and the
    /// copy is read back and checked.
    public static func patched(file: String, to output: String, sdkABIMajor: UInt32? = nil, sdkABIMinor: UInt32? = nil,
                               toolchain: String? = nil) throws {
        let elf = try ELFFile(path: file)
        guard let section = elf.sectionHeader(named: PluginStamp.sectionName), section.hasContents else {
            throw StampPatchError(description: "\(file) has no \(PluginStamp.sectionName) section")
        }
        let original = try PluginStamp(bytes: elf.contents(of: section))  // refuses a record it could not patch safely
        var toolchainField: [UInt8]?
        if let toolchain {
            let utf8 = Array(toolchain.utf8)
            guard utf8.count < PluginStamp.toolchainCapacity, !utf8.contains(0) else {
                throw StampPatchError(description: "toolchain \"\(toolchain)\" does not fit the stamp's \(PluginStamp.toolchainCapacity) bytes with its NUL")
            }
            toolchainField = utf8 + [UInt8](repeating: 0, count: PluginStamp.toolchainCapacity - utf8.count)
        }

        let fm = FileManager.default
        if fm.fileExists(atPath: output) { try fm.removeItem(atPath: output) }
        try fm.copyItem(atPath: file, toPath: output)  // keeps the mode bits
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: output))
        defer { try? handle.close() }
        func write(_ bytes: [UInt8], at fieldOffset: Int) throws {
            try handle.seek(toOffset: UInt64(section.offset + fieldOffset))
            try handle.write(contentsOf: Data(bytes))
        }
        func littleEndian(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * UInt32($0))) } }
        if let sdkABIMajor { try write(littleEndian(sdkABIMajor), at: 8) }
        if let sdkABIMinor { try write(littleEndian(sdkABIMinor), at: 12) }
        if let toolchainField { try write(toolchainField, at: 16) }
        try handle.synchronize()

        let patched = try ELFFile(path: output).stamp()
        let expected = PluginStamp(sdkABIMajor: sdkABIMajor ?? original.sdkABIMajor, sdkABIMinor: sdkABIMinor ?? original.sdkABIMinor,
                                   toolchain: toolchain ?? original.toolchain, recordSize: original.recordSize)
        guard patched == expected else {
            throw StampPatchError(description: "patched stamp of \(output) reads back as \(String(describing: patched)), expected \(expected)")
        }
    }
}
