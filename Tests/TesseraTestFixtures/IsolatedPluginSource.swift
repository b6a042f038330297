/// The sources of the process tier's test plugin (`PluginBuilder.Kind.isolated`).
enum IsolatedPluginSource {
    static let constructor = """
        #include <stdio.h>
        #include <stdlib.h>
        #include <unistd.h>

        __attribute__((constructor)) static void fixture_constructor(void) {
            const char *path = getenv("TESSERA_FIXTURE_CONSTRUCTOR_FILE");
            if (!path) return;
            FILE *f = fopen(path, "a");
            if (!f) return;
            fprintf(f, "%d\\n", (int)getpid());
            fclose(f);
        }
        """

    static let swift = #"""
        import Foundation
        import TesseraSDK

        final class IsolatedPlugin: Plugin {
            var migrations: [StorageMigration] {
                [StorageMigration(version: 1, sql: "CREATE TABLE notes (id TEXT PRIMARY KEY, text TEXT NOT NULL, at TEXT)")]
            }

            func start(context: PluginContext) async throws {
                context.onOperation("echo") { call in call.input }
                context.onOperation("pid") { _ in .object(["pid": .integer(Int64(getpid()))]) }
                context.onOperation("crash") { call in
                    switch call.input["kind"]?.stringValue {
                    case "segfault":
                        let p = UnsafeMutablePointer<Int>(bitPattern: 8)!
                        p.pointee = 1
                    case "abort": abort()
                    default: fatalError("the fixture was asked to crash")
                    }
                    return .null
                }
                context.onOperation("spin") { _ in
                    var x: UInt64 = 0
                    while true { x &+= 1; if x == 0 { break } }
                    return .integer(Int64(bitPattern: x))
                }
                context.onOperation("read-file") { call in
                    let path = call.input["path"]?.stringValue ?? ""
                    let text = try String(contentsOfFile: path, encoding: .utf8)
                    return .object(["bytes": .integer(Int64(text.utf8.count))])
                }
                context.onOperation("add-note") { call in
                    let storage = try context.capability(.storage)
                    let id = call.input["id"]?.stringValue ?? "n"
                    let now = context.isGranted(.clock) ? try context.capability(.clock).now() : Date(timeIntervalSince1970: 0)
                    try await storage.write {
                        $0.put("notes", id: id, ["text": .text(call.input["text"]?.stringValue ?? ""), "at": .text(now.ISO8601Format())])
                        if context.isGranted(.events) { $0.emit("note-added", .object(["id": .string(id)])) }
                    }
                    return .object(["id": .string(id)])
                }
                context.onOperation("notes") { _ in
                    let rows = try await context.capability(.storage).query("SELECT id, text, at FROM notes ORDER BY id")
                    return .array(rows.map(\.jsonObject))
                }
                context.onOperation("remind") { call in
                    let clock = try context.capability(.clock)
                    let seconds = call.input["in"]?.doubleValue ?? 60
                    try await clock.schedule(TimerRequest(key: "remind:\(seconds)", name: "reminder",
                                                          fireAt: clock.now().addingTimeInterval(seconds), payload: call.input))
                    return .object(["pending": .integer(Int64(try await clock.pendingTimers().count))])
                }
                context.onTimer("reminder") { firing in
                    try await context.capability(.storage).write {
                        $0.put("notes", id: "fired:\(firing.key)", ["text": .text("fired"), "at": .text(firing.firedAt.ISO8601Format())])
                    }
                    if context.isGranted(.notifications) {
                        try await context.capability(.notifications).schedule(NotificationRequest(
                            key: firing.key, title: "Reminder", body: firing.payload["text"]?.stringValue ?? "",
                            schedule: .at(firing.firedAt)))
                    }
                }
                context.onEvent("fixture.isolated/note-added") { event in
                    try await context.capability(.storage).write {
                        $0.put("notes", id: "seen:\(event.payload["id"]?.stringValue ?? "")", ["text": .text("event \(event.sequence)")])
                    }
                }
                context.log.info("the isolated fixture started in process \(getpid())")
            }
        }

        @_cdecl("tessera_plugin_entry")
        public func tesseraPluginEntry(_ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
            PluginExport.descriptor(id: "fixture.isolated") { IsolatedPlugin() }
        }
        """#
}
