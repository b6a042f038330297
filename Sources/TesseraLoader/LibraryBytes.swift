import Glibc

/// A library's contents, held read-only in memory: the staged copy mapped with `mmap`, or an array.
///
/// Staging used to read the build into a fresh array: on every load the kernel zeroed and mapped
/// that many new pages for it (a quarter of staging's time for a 300 KB library), and the bytes
/// were copied twice more (into the array, then into the copy). Now the build is copied file to
/// file in the kernel (`sendfile`), and the copy — the host's own file, in its generations folder — is mapped
/// from the page cache it was just written to; the hash, gate 1 and `dlopen` all see those bytes.
public final class LibraryBytes: @unchecked Sendable {
    // Immutable after init; the mapping is private to this object and unmapped in deinit.
    private let base: UnsafeRawPointer?
    /// How many bytes.
    public let count: Int
    private let mappedLength: Int
    private let array: [UInt8]?

    /// Maps `count` bytes of the open file `descriptor` (the file at `path`) read-only; with
    /// `populate`, every page at once (for bytes about to be hashed whole), otherwise each page
    /// when first read (a copy staged before: gate 1 reads a few of its pages).
    init(mapping descriptor: Int32, count: Int, path: String, populate: Bool = true) throws(FileReadError) {
        self.count = count
        array = nil
        guard count > 0 else { base = nil; mappedLength = 0; return }
        let address = mmap(nil, count, PROT_READ, MAP_SHARED | (populate ? MAP_POPULATE : 0), descriptor, 0)
        guard let address, address != MAP_FAILED else {
            throw FileReadError(path: path, operation: "cannot map", code: errno)
        }
        base = UnsafeRawPointer(address)
        mappedLength = count
    }

    /// Bytes already in an array.
    public init(_ bytes: [UInt8]) {
        array = bytes
        count = bytes.count
        base = nil
        mappedLength = 0
    }

    deinit {
        if let base, mappedLength > 0 { munmap(UnsafeMutableRawPointer(mutating: base), mappedLength) }
    }

    /// Calls `body` with the bytes; the pointer is valid only inside it.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        if let array { return try array.withUnsafeBytes(body) }
        return try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// A copy of the bytes in `range`, which must lie within ``count``.
    public func copy(_ range: Range<Int>) -> [UInt8] {
        withUnsafeBytes { Array($0[range]) }
    }
}
