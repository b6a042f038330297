import Glibc
import TesseraSDK
import TesseraSystem

/// Hashing files, for the loader: it hashes every plugin library to check its manifest's pin and
/// to name its content-addressed copy (`let pin = try SHA256.hash(file: "libTesseraExample.so")`).
/// The hash itself is the SDK's ``SHA256``.
extension SHA256 {
    /// The lowercase hex digest of the file at `path`, read in 64 KiB chunks.
    ///
    /// - Throws: ``FileReadError`` if the file cannot be opened or read.
    public static func hash(file path: String) throws(FileReadError) -> String {
        hex(try digest(file: path))
    }

    /// The 32-byte digest of the file at `path`, read in 64 KiB chunks.
    public static func digest(file path: String) throws(FileReadError) -> [UInt8] {
        let fd: Int32
        switch RegularFile.open(path) {
        case .success(let opened): fd = opened.descriptor
        case .failure(let error): throw error
        }
        defer { close(fd) }
        let chunkSize = 64 * 1024
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { chunk.deallocate() }
        var hash = SHA256()
        while true {
            let n = SystemCall.retryingInterrupted { read(fd, chunk.baseAddress, chunkSize) }
            if n > 0 {
                hash.update(UnsafeRawBufferPointer(rebasing: chunk[0..<n]))
            } else if n == 0 {
                break
            } else {
                throw FileReadError(path: path, operation: "cannot read", code: errno)
            }
        }
        return hash.finalize()
    }
}

/// A file could not be opened or read.
public struct FileReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file.
    public let path: String
    /// What failed and why, e.g. `cannot open: No such file or directory`.
    public let reason: String
    /// The `errno` value, when there was one.
    public let code: Int32?

    public init(path: String, reason: String, code: Int32? = nil) {
        self.path = path
        self.reason = reason
        self.code = code
    }

    init(path: String, operation: String, code: Int32) {
        self.init(path: path, reason: "\(operation): \(String(cString: strerror(code)))", code: code)
    }

    /// The reason, without the path (callers name the file).
    public var description: String { reason }
}
