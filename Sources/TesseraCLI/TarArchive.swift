import Foundation
#if canImport(Glibc)
import Glibc
import TesseraSystem
#endif

/// A POSIX ustar archive, written and read a member at a time (what `tessera backup` writes and
/// `tessera restore` reads; any `tar` reads it too). Only what a backup needs: regular files with
/// names of up to 255 bytes, in 512-byte blocks, ended by two zero blocks.
enum TarArchive {
    static let block = 512

    /// Writes members to a file descriptor.
    struct Writer {
        let fd: Int32

        /// A member's header, then `size` bytes that `body` writes through `write`, then padding.
        func add(_ name: String, size: Int, mode: Int = 0o600, mtime: Int = 0,
                 body: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
            try writeAll(try TarArchive.header(name: name, size: size, mode: mode, mtime: mtime))
            var written = 0
            try body { chunk in
                try writeAll(chunk)
                written += chunk.count
            }
            guard written == size else { throw BackupError("\(name) changed size while it was archived (\(size) → \(written) bytes)") }
            let padding = (TarArchive.block - size % TarArchive.block) % TarArchive.block
            if padding > 0 { try writeAll([UInt8](repeating: 0, count: padding)) }
        }

        /// The archive's end: two zero blocks.
        func finish() throws { try writeAll([UInt8](repeating: 0, count: 2 * TarArchive.block)) }

        func writeAll(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try writeAll($0) } }

        func writeAll(_ buffer: UnsafeRawBufferPointer) throws {
            do { try SystemCall.writeAll(fd, buffer) } catch { throw BackupError("cannot write the archive: \(error)") }
        }
    }

    /// The 512-byte ustar header of a regular file.
    static func header(name: String, size: Int, mode: Int, mtime: Int) throws -> [UInt8] {
        var header = [UInt8](repeating: 0, count: block)
        let bytes = Array(name.utf8)
        var prefix: [UInt8] = [], base = bytes
        if bytes.count > 100 {
            // Split at a slash: up to 155 bytes of folders, up to 100 of the rest.
            guard let slash = bytes.indices.last(where: { bytes[$0] == UInt8(ascii: "/") && $0 <= 155 && bytes.count - $0 - 1 <= 100 }) else {
                throw BackupError("\(name): a name too long for the archive")
            }
            prefix = Array(bytes[..<slash])
            base = Array(bytes[(slash + 1)...])
        }
        func put(_ field: [UInt8], at offset: Int) { for (i, byte) in field.enumerated() { header[offset + i] = byte } }
        func octal(_ value: Int, width: Int) -> [UInt8] { Array(String(String(value, radix: 8).suffix(width - 1)).leftPadded(to: width - 1).utf8) + [0] }
        put(base, at: 0)
        put(octal(mode, width: 8), at: 100)
        put(octal(0, width: 8), at: 108)
        put(octal(0, width: 8), at: 116)
        put(octal(size, width: 12), at: 124)
        put(octal(mtime, width: 12), at: 136)
        put(Array("        ".utf8), at: 148)  // the checksum counts itself as spaces
        header[156] = UInt8(ascii: "0")
        put(Array("ustar".utf8) + [0], at: 257)
        put(Array("00".utf8), at: 263)
        put(prefix, at: 345)
        let sum = header.reduce(0) { $0 + Int($1) }
        put(Array(String(String(sum, radix: 8)).leftPadded(to: 6).utf8) + [0, UInt8(ascii: " ")], at: 148)
        return header
    }

    /// One member read back: its name and the path of a file holding its bytes.
    struct Member {
        var name: String
        var size: Int
    }

    /// Reads every member of the archive at `path`, handing each one's bytes in chunks to `body`.
    static func read(_ path: String, _ body: (Member, _ chunks: () throws -> [UInt8]?) throws -> Void) throws {
        guard let input = FileHandle(forReadingAtPath: path) else { throw BackupError("cannot open \(path)") }
        defer { try? input.close() }
        func exactly(_ count: Int) throws -> [UInt8] {
            var bytes: [UInt8] = []
            while bytes.count < count {
                guard let chunk = try input.read(upToCount: count - bytes.count), !chunk.isEmpty else {
                    throw BackupError("\(path) ends in the middle of a member: not a whole backup")
                }
                bytes += chunk
            }
            return bytes
        }
        while true {
            let header = try exactly(block)
            if header.allSatisfy({ $0 == 0 }) { return }
            let stored = Int(field(header, 148, 8).trimmingCharacters(in: .whitespaces), radix: 8)
            var blank = header
            for i in 148..<156 { blank[i] = UInt8(ascii: " ") }
            guard stored == blank.reduce(0, { $0 + Int($1) }) else { throw BackupError("\(path): a damaged member header: not a backup, or a damaged one") }
            guard let size = Int(field(header, 124, 12).trimmingCharacters(in: .whitespaces), radix: 8) else {
                throw BackupError("\(path): a member without a size")
            }
            let prefix = field(header, 345, 155), base = field(header, 0, 100)
            let name = prefix.isEmpty ? base : prefix + "/" + base
            var left = size
            try body(Member(name: name, size: size)) {
                guard left > 0 else { return nil }
                let chunk = try exactly(min(left, 1 << 16))
                left -= chunk.count
                return chunk
            }
            while left > 0 { left -= try exactly(min(left, 1 << 16)).count }  // what the body did not read
            let padding = (block - size % block) % block
            if padding > 0 { _ = try exactly(padding) }
        }
    }

    private static func field(_ header: [UInt8], _ offset: Int, _ length: Int) -> String {
        let bytes = header[offset..<(offset + length)].prefix { $0 != 0 }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Why a backup or a restore could not be made, in a sentence.
struct BackupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
