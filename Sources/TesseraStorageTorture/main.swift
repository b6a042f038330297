// tessera-storage-torture DBPATH START
// tessera-storage-torture notifications DATADIR COUNT WEBHOOK-URL [LEAD]   (NotificationsTorture.swift)
// tessera-storage-torture files DATADIR START          (FilesTorture.swift)
//
// Opens SQLitePluginStorage on DBPATH, migrates `items`, then writes batches numbered START,
// START+1, … forever. Each batch puts 50 rows with ids "b<batch>-<n>"; after `write` returns the tool
// prints "ack <batch>" on stdout (one write(2), unbuffered). The crash-safety test kills it with
// SIGKILL at varying points and checks that every acknowledged batch survived whole.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import TesseraSDK
import TesseraStorage
import TesseraClock
import TesseraNotifications
import TesseraSystem

let arguments = CommandLine.arguments
if arguments.count == 5 || arguments.count == 6, arguments[1] == "notifications", let count = Int(arguments[3]) {
    let lead = arguments.count == 6 ? Int(arguments[5]) : nil
    if arguments.count == 6, (lead ?? 0) < 1 {
        FileHandle.standardError.write(Data("tessera-storage-torture notifications: LEAD is how many deliveries may run ahead of stdin's newlines, a whole number of at least 1, not '\(arguments[5])'\n".utf8))
        exit(64)
    }
    await deliverNotificationsUntilKilled(dataDirectory: arguments[2], count: count, webhook: arguments[4], lead: lead)
}
if arguments.count == 4, arguments[1] == "files", let start = Int(arguments[3]) {
    await putFilesUntilKilled(dataDirectory: arguments[2], start: start)
}
guard arguments.count == 3, let start = Int64(arguments[2]) else {
    FileHandle.standardError.write(Data("usage: tessera-storage-torture DBPATH START\n".utf8))
    exit(64)
}

func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    do { try bytes.withUnsafeBytes { buffer in try SystemCall.writeAll(STDOUT_FILENO, buffer) } } catch {
        exit(74)  // the reader went away
    }
}

do {
    let storage = try SQLitePluginStorage(pluginID: "torture", path: arguments[1], now: { Date() })
    try storage.migrate([
        StorageMigration(version: 1, sql: "CREATE TABLE items(id TEXT PRIMARY KEY, batch INTEGER, n INTEGER, payload TEXT)"),
    ])
    let payload = String(repeating: "tessera ", count: 16)
    var number = start
    while true {
        var batch = WriteBatch()
        for n in 0..<50 {
            batch.put("items", id: "b\(number)-\(n)",
                      ["batch": .integer(number), "n": .integer(Int64(n)), "payload": .text(payload)])
        }
        try await storage.write(batch)
        say("ack \(number)")
        number += 1
    }
} catch {
    FileHandle.standardError.write(Data("tessera-storage-torture: \(error)\n".utf8))
    exit(1)
}
