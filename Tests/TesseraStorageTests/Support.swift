import Foundation
import Synchronization
import Testing
import TesseraSDK
import TesseraSQLite
import TesseraStorage

/// A temporary directory, removed when the value goes away.
final class TempDirectory: Sendable {
    let path: String

    init(_ label: String = "storage") {
        path = (NSTemporaryDirectory() as NSString)
            .appendingPathComponent("tessera-\(label)-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { (path as NSString).appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A clock that stands still until moved.
final class TestClock: Sendable {
    private let time: Mutex<Date>
    init(_ start: Date = Date(timeIntervalSince1970: 1_772_438_400)) { time = Mutex(start) }  // 2026-03-02T08:00:00Z
    var now: Date { time.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { time.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// The error `body` throws, which must be a `PluginError`; records an issue otherwise.
func pluginError(_ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async -> PluginError? {
    do {
        try await body()
        Issue.record("expected a PluginError, nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as PluginError {
        return error
    } catch {
        Issue.record("expected a PluginError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// The problem of the error `body` throws, which must be a `StoreMigrationError` naming a plugin's
/// database (the one error type of every migration runner).
func migrationError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> StoreMigrationError.Problem? {
    do {
        try body()
        Issue.record("expected a StoreMigrationError, nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as StoreMigrationError {
        #expect(error.subject.isPlugin, "a plugin's database is named as a plugin's: \(error)", sourceLocation: sourceLocation)
        #expect(error.description.hasPrefix("the database of plugin '"), "\(error)", sourceLocation: sourceLocation)
        return error.problem
    } catch {
        Issue.record("expected a StoreMigrationError, got \(type(of: error)): \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A storage with a `notes` table and a `tags` table, in a fresh directory.
struct Fixture {
    let directory = TempDirectory()
    let clock = TestClock()
    let storage: SQLitePluginStorage

    static let migrations = [
        StorageMigration(version: 1, sql: """
            CREATE TABLE notes(id TEXT PRIMARY KEY, title TEXT NOT NULL DEFAULT 'untitled', body TEXT,
                               stars INTEGER, score REAL, data BLOB);
            """),
        StorageMigration(version: 2, sql: """
            CREATE TABLE tags(id TEXT PRIMARY KEY, note_id TEXT REFERENCES notes(id), label TEXT UNIQUE);
            """),
    ]

    init(migrate: Bool = true) throws {
        let clock = self.clock
        storage = try SQLitePluginStorage(pluginID: "dev.test.notes", path: directory.file("plugin/notes.sqlite"),
                                          now: { clock.now })
        if migrate { try storage.migrate(Self.migrations) }
    }

    /// The rows of `sql`, as [column: value] dictionaries.
    func rows(_ sql: String, _ parameters: [SQLValue] = []) async throws -> [[String: SQLValue]] {
        try await storage.query(sql, parameters).map { row in
            Dictionary(uniqueKeysWithValues: zip(row.columns, row.values))
        }
    }

    func count(_ table: String) async throws -> Int64 {
        try await storage.query("SELECT COUNT(*) AS n FROM \(table)").first?["n"].integer ?? -1
    }
}
