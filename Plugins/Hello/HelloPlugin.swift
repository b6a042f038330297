import TesseraSDK

/// The smallest useful plugin: one operation that greets a person and counts how often it did,
/// in its own database. It imports nothing but the SDK (no Foundation), so its library is a tenth
/// of the example's: the benchmarks load it as the "small plugin" the load target speaks of, and
/// `Plugins/Hello/manifest.json` shows the least a manifest needs.
package final class HelloPlugin: Plugin {
    package init() {}

    package var migrations: [StorageMigration] {
        [StorageMigration(version: 1, sql: "CREATE TABLE greetings (id TEXT PRIMARY KEY, count INTEGER NOT NULL)")]
    }

    package func start(context: PluginContext) async throws {
        let storage = try context.capability(.storage)
        context.onOperation("greet", input: Greet.self) { input, _ in
            let rows = try await storage.query("SELECT count FROM greetings WHERE id = ?", [.text(input.name)])
            let count = (rows.first?["count"].integer ?? 0) + 1
            try await storage.write { $0.put("greetings", id: input.name, ["count": .integer(count)]) }
            return Greeting(greeting: "Hello, \(input.name)!", count: count)
        }
    }
}

struct Greet: Decodable, Sendable { let name: String }
struct Greeting: Encodable, Sendable { let greeting: String; let count: Int64 }

