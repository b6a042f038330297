import Foundation
import Testing
import TesseraSDK
import TesseraStorage

@Suite struct QuotaTests {
    @Test func aBatchPastTheQuotaIsRefusedWholeAndEarlierDataStays() async throws {
        let f = try Fixture()
        try f.storage.limitSize(toMegabytes: 1)
        let blob = SQLValue.blob([UInt8](repeating: 7, count: 100_000))
        try await f.storage.write { $0.put("notes", id: "kept", ["data": blob]) }
        // Ten rows of 100 kB do not fit in 1 MB next to the first one.
        let error = await pluginError {
            try await f.storage.write { batch in
                for i in 0..<10 { batch.put("notes", id: "n\(i)", ["data": blob]) }
            }
        }
        #expect(error?.code == .forbidden)
        #expect(error?.message.contains("quota of 1 MB") == true)
        #expect(try await f.count("notes") == 1)
        #expect(try f.storage.changes(after: 0, limit: 100).count == 1)
        // Small writes still fit.
        try await f.storage.write { $0.put("notes", id: "small", ["title": "ok"]) }
        #expect(try await f.count("notes") == 2)
    }
}
