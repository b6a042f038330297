import TesseraSDK

extension SyncChange {
    /// The file address this change writes, if its value is one: a cell whose value is text of 64
    /// lowercase hex digits, the form of a `files` content address (a SHA-256; docs/files.md).
    ///
    /// This is how a synced record carries a reference to a file: the record keeps the address in
    /// one of its columns, and the hub and the devices recognise it there (docs/files.md, "Through
    /// the hub"). A value of that form that names no file costs nothing: the hub never serves
    /// bytes nobody uploaded, and a device fetches only addresses its plugin reads.
    public var fileAddress: String? {
        guard case .cell(_, .text(let text), _) = kind, Self.isFileAddress(text) else { return nil }
        return text
    }

    /// Whether `text` has the form of a content address: 64 lowercase hex digits.
    public static func isFileAddress(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
