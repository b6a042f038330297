import CCrypt

/// Passwords hashed with **yescrypt**, the memory-hard hash of the system's libcrypt (libxcrypt),
/// in its standard `$y$…` text: the algorithm, its cost and the salt travel with the hash, so a
/// later cost can be chosen without breaking older hashes.
///
/// Only the hash is stored; the password itself is never kept or logged.
public enum PasswordHash {
    /// The hash of `password` with a fresh random salt (libcrypt draws it from the OS) at
    /// libxcrypt's default yescrypt cost.
    public static func make(_ password: String) throws(HubError) -> String {
        var setting = [CChar](repeating: 0, count: Int(CRYPT_GENSALT_OUTPUT_SIZE))
        guard crypt_gensalt_rn("$y$", 0, nil, 0, &setting, Int32(setting.count)) != nil else {
            throw HubError(.internal, "password_hash", "libcrypt could not make a yescrypt salt")
        }
        guard let hash = crypt(password, setting: setting) else {
            throw HubError(.internal, "password_hash", "libcrypt could not hash the password with yescrypt")
        }
        return hash
    }

    /// Whether `password` matches `stored` (a hash from ``make(_:)``), compared in constant time.
    public static func verify(_ password: String, against stored: String) -> Bool {
        guard let computed = crypt(password, setting: Array(stored.utf8CString)) else { return false }
        return ConstantTime.equal(Array(computed.utf8), Array(stored.utf8))
    }

    /// `crypt_rn` into a heap-allocated `crypt_data` (it is 32 KiB: too big for a thread's stack
    /// budget in an async context). `nil` when libcrypt refuses (its failure token starts with `*`).
    private static func crypt(_ password: String, setting: [CChar]) -> String? {
        let data = UnsafeMutablePointer<crypt_data>.allocate(capacity: 1)
        defer {
            // The buffer held the password: wipe it before giving the memory back.
            UnsafeMutableRawPointer(data).initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<crypt_data>.size)
            data.deallocate()
        }
        UnsafeMutableRawPointer(data).initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<crypt_data>.size)
        let result = password.withCString { phrase in
            setting.withUnsafeBufferPointer { setting in
                crypt_rn(phrase, setting.baseAddress, UnsafeMutableRawPointer(data), Int32(MemoryLayout<crypt_data>.size))
            }
        }
        guard let result else { return nil }
        let text = String(cString: result)
        return text.hasPrefix("*") ? nil : text
    }
}

/// Comparisons whose time does not depend on where two secrets first differ.
enum ConstantTime {
    /// Whether `a` and `b` hold the same bytes; the time depends only on the lengths.
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<min(a.count, b.count) { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
