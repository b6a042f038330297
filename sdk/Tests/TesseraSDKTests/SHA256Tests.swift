import Testing
@_spi(TesseraHost) import TesseraSDK

/// The SDK's SHA-256 family against published vectors (RFC 4231, RFC 7914) and Python's hashlib,
/// on both compression paths where the CPU has the SHA extensions.
@Suite struct SHA256Tests {
    static func hex(_ bytes: [UInt8]) -> String { SHA256.hex(bytes) }

    @Test(arguments: [false, true])
    func theDigestIsFIPSs(portable: Bool) {
        var hash = SHA256(forcePortable: portable)
        hash.update(Array("abc".utf8))
        #expect(Self.hex(hash.finalize()) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(of: [UInt8]()) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    /// RFC 4231 test cases 1, 2 and 6 (the last with a key longer than a block, hashed first).
    @Test func hmacMatchesRFC4231() {
        #expect(Self.hex(SHA256.authenticationCode(for: Array("Hi There".utf8), key: [UInt8](repeating: 0x0b, count: 20)))
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(Self.hex(SHA256.authenticationCode(for: Array("what do ya want for nothing?".utf8), key: Array("Jefe".utf8)))
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(Self.hex(SHA256.authenticationCode(for: Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8),
                                                   key: [UInt8](repeating: 0xaa, count: 131)))
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }

    /// RFC 7914 §11's vectors (the first 32 bytes), and the C code's other paths against Python's
    /// `hashlib.pbkdf2_hmac`: a password longer than a block, a salt longer than its stack buffer,
    /// and a salt whose index spills into a second block.
    @Test func pbkdf2MatchesRFC7914AndHashlib() {
        #expect(Self.hex(SHA256.derivedKey(password: Array("passwd".utf8), salt: Array("salt".utf8), iterations: 1))
                == "55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc")
        #expect(Self.hex(SHA256.derivedKey(password: Array("Password".utf8), salt: Array("NaCl".utf8), iterations: 80000))
                == "4ddcd8f60b98be21830cee5ef22701f9641a4418d04c0414aeff08876b34ab56")
        let longSalt = (0..<256).map { UInt8($0) } + Array("xyz".utf8)
        #expect(Self.hex(SHA256.derivedKey(password: [UInt8](repeating: 0x70, count: 100), salt: longSalt, iterations: 3))
                == "baf31fce655be7231cbb9ad7674be4f2ca15c2fb76ba3022cbd38d9a3e4b6b49")
        #expect(Self.hex(SHA256.derivedKey(password: Array("pw".utf8), salt: [UInt8](repeating: 0x73, count: 60), iterations: 2))
                == "608f62f81a90ea0937e6ff5a2e0722a7f9aa9aafd99afc79ad53d53cc6b2dcd7")
    }

    @Test func constantTimeEqualityComparesLengthsAndEveryByte() {
        #expect(SHA256.constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!SHA256.constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!SHA256.constantTimeEquals([1, 2, 3], [1, 2]))
    }
}
