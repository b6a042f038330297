import CTesseraImage
import Foundation
import TesseraSDK
import TesseraSystem

/// The manifests this host build read, checked and compiled without an error, recorded on disk so
/// that the next process of the same build does not check them again.
///
/// Every new process — each `tessera serve` restart, each `tessera call` — reads its manifests
/// anew: checking one against the manifest schema (the schema itself compiled first) and compiling
/// its operations' schemas is most of a restart's work before the plugin's library is touched
/// (docs/benchmarks.md, "A manifest that passed is not checked again"). A manifest whose exact
/// bytes passed before under the same build is decoded without the check, and its schemas are
/// compiled when first used (``SchemaOnFirstUse``).
///
/// A record is a file named by the SHA-256 of the host's build ID and the manifest's bytes, holding
/// the manifest's `id` (the host's catalog of manifests takes a file's id from its record instead
/// of parsing the file: `tessera call` reads one plugin's manifest, not every module's). Another
/// byte, or another build of the host (a changed compiler of schemas), is another name, so it is
/// checked in full again. The folder is the host's own, inside its generations folder:
/// whoever can write there can already replace the libraries the host loads. A lost record costs
/// one full check; no record is fsynced.
public struct CheckedManifests: Sendable {
    /// The folder of records.
    public let folder: String
    /// The build the records are for.
    private let build: [UInt8]

    /// How many records the folder keeps at most; past that it starts over.
    static let capacity = 256

    /// The records in `folder` for this host build; `nil` if the build has no ID to key them by
    /// (a host linked without `--build-id`: every manifest is then checked in full).
    public init?(folder: String) {
        guard let build = Self.runningBuild else { return nil }
        self.init(folder: folder, build: build)
    }

    /// The records in `folder` for the build `build` (tests: another build's records).
    init(folder: String, build: [UInt8]) {
        self.folder = folder
        self.build = build
    }

    /// Whether a manifest of exactly `content` passed before under this build.
    func passed(_ content: Data) -> Bool {
        access(path(for: content), F_OK) == 0
    }

    /// The `id` of the manifest of exactly `content`, if it passed before under this build: what
    /// its record holds. `nil` without a record, or with one that does not end in a newline (a
    /// record is renamed into place whole, but a crash may leave a renamed file empty).
    public func recordedID(of content: Data) -> String? {
        let fd = open(path(for: content), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { (try? SystemCall.readFully(fd, into: $0, at: 0)) ?? 0 }
        guard count > 1, count < buffer.count, buffer[count - 1] == UInt8(ascii: "\n") else { return nil }
        return String(decoding: buffer[..<(count - 1)], as: UTF8.self)
    }

    /// Records that the manifest `id`, of exactly `content`, passed: written under a temporary
    /// name and renamed into place, so a record is whole or absent. Failing to write is not an
    /// error: the manifest is checked in full next time.
    func record(_ content: Data, id: String) {
        if access(folder, F_OK) != 0 {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                     attributes: [.posixPermissions: 0o700])
        } else if let names = try? FileManager.default.contentsOfDirectory(atPath: folder), names.count >= Self.capacity {
            for name in names { unlink(folder + "/" + name) }
        }
        let path = path(for: content), temporary = path + ".\(getpid()).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        let line = Array((id + "\n").utf8)
        let written = (try? line.withUnsafeBytes { try SystemCall.writeAll(fd, $0) }) != nil
        close(fd)
        if !written || rename(temporary, path) != 0 { unlink(temporary) }
    }

    /// The record's file: the hex SHA-256 of the build ID, its length, and the bytes.
    func path(for content: Data) -> String {
        var hash = SHA256()
        hash.update(withUnsafeBytes(of: UInt32(build.count).littleEndian) { Array($0) })
        hash.update(build)
        content.withUnsafeBytes { hash.update($0) }
        return folder + "/" + SHA256.hex(hash.finalize())
    }

    /// The build ID of the image this code is linked into (the host's executable).
    static let runningBuild: [UInt8]? = {
        var id = [UInt8](repeating: 0, count: 64)
        let length = id.withUnsafeMutableBufferPointer { tessera_image_build_id(#dsohandle, $0.baseAddress, $0.count) }
        guard length > 0, length <= id.count else { return nil }
        return Array(id.prefix(length))
    }()
}
