#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TesseraFiles
import TesseraSDK

/// `tessera-storage-torture files DATADIR START`: puts files numbered START, START+1, … into the
/// plugin `torture`'s files until killed, 16 KiB at a time; after `finish` returns it prints
/// `ack <number> <address>`, and `writing <number>` once a file's first chunk is written. The crash
/// test kills it with SIGKILL, after an ack or (to land mid-write) after a `writing`, and checks that every acknowledged file is whole and no half file is
/// visible.
func putFilesUntilKilled(dataDirectory: String, start: Int) async -> Never {
    let store = FileStore(dataDirectory: dataDirectory)
    let files = PluginFileChannel(pluginID: "torture", store: store,
                                  policy: FilePolicy(mediaTypes: ["image/jpeg"], quotaBytes: nil, maxFileBytes: nil), now: { Date() })
    var number = start
    do {
        while true {
            let bytes = tortureFile(number)
            let writer = try await files.writer(mediaType: nil)
            for offset in stride(from: 0, to: bytes.count, by: 16 * 1024) {
                try await writer.write(Array(bytes[offset..<min(offset + 16 * 1024, bytes.count)]))
                if offset == 0 { say("writing \(number)") }  // a kill from now on lands mid-write
            }
            let file = try await writer.finish()
            say("ack \(number) \(file.address)")
            number += 1
        }
    } catch {
        FileHandle.standardError.write(Data("tessera-storage-torture files: \(error)\n".utf8))
        exit(1)
    }
}

/// File `number`'s bytes: a JPEG's magic, then a pattern of the number; 256 KiB to 1.1 MiB.
func tortureFile(_ number: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: (256 + (number % 8) * 128) * 1024)
    bytes[0] = 0xFF; bytes[1] = 0xD8; bytes[2] = 0xFF
    for i in 3..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: i &* 131 &+ number &* 7) }
    return bytes
}
