/// The sources of the process tier's test plugin (`PluginBuilder.Kind.isolated`).
enum IsolatedPluginSource {
    static let constructor = """
        #include <errno.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <sys/wait.h>
        #include <unistd.h>

        // A hostile author's fork: the child would keep the host socket (issue 43). Returns the
        // child's pid (reaped at once) or -errno.
        int fixture_fork(void) {
            pid_t pid = fork();
            if (pid < 0) return -errno;
            if (pid == 0) _exit(0);
            waitpid(pid, NULL, 0);
            return (int)pid;
        }

        // In the process tier the sandbox refuses the file below; this says the constructor ran all the same.
        static int constructor_pid;
        int fixture_constructor_pid(void) { return constructor_pid; }

        __attribute__((constructor)) static void fixture_constructor(void) {
            constructor_pid = (int)getpid();
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

        /// The kernel's name of the thread running the caller.
        func currentThreadName() -> String {
            ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        }

        final class IsolatedPlugin: Plugin {
            var migrations: [StorageMigration] {
                [StorageMigration(version: 1, sql: "CREATE TABLE notes (id TEXT PRIMARY KEY, text TEXT NOT NULL, at TEXT)"),
                 // A table fit for sync (every column has a default), for a manifest that syncs it.
                 StorageMigration(version: 2, sql: "CREATE TABLE shared (id TEXT PRIMARY KEY, text TEXT NOT NULL DEFAULT '')")]
            }

            func start(context: PluginContext) async throws {
                context.onOperation("echo") { call in call.input }
                context.onOperation("pid") { _ in
                    .object(["pid": .integer(Int64(getpid())), "constructorPID": .integer(Int64(fixtureConstructorPID()))])
                }
                // What a third-party author would try around the capabilities (docs/isolation.md, "The sandbox").
                context.onOperation("open-file") { call in
                    let fd = open(call.input["path"]?.stringValue ?? "", O_RDONLY)
                    guard fd >= 0 else { return .object(["opened": false, "error": .string(String(cString: strerror(errno)))]) }
                    defer { close(fd) }
                    var buffer = [UInt8](repeating: 0, count: 8192)
                    let n = max(0, read(fd, &buffer, buffer.count))
                    return .object(["opened": true, "text": .string(String(decoding: buffer.prefix(n), as: UTF8.self))])
                }
                context.onOperation("connect") { call in
                    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
                    guard fd >= 0 else { return .object(["connected": false, "step": "socket", "error": .string(String(cString: strerror(errno)))]) }
                    defer { close(fd) }
                    var address = sockaddr_in()
                    address.sin_family = sa_family_t(AF_INET)
                    address.sin_port = in_port_t(UInt16(call.input["port"]?.integerValue ?? 0)).bigEndian
                    address.sin_addr.s_addr = inet_addr("127.0.0.1")
                    let r = withUnsafePointer(to: &address) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                    }
                    guard r == 0 else { return .object(["connected": false, "step": "connect", "error": .string(String(cString: strerror(errno)))]) }
                    return .object(["connected": true])
                }
                context.onOperation("allocate") { call in
                    // Touched 4 MiB chunks, kept: resident, not only reserved.
                    var chunks: [[UInt8]] = []
                    let mib = Int(call.input["mib"]?.integerValue ?? 0)
                    for i in 0..<(mib / 4) { chunks.append([UInt8](repeating: UInt8(truncatingIfNeeded: i + 1), count: 4 << 20)) }
                    return .object(["mib": .integer(Int64(chunks.count * 4)), "check": .integer(Int64(chunks.last?.last ?? 0))])
                }
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
                context.onOperation("say") { call in
                    FileHandle.standardError.write(Data((call.input["text"]?.stringValue ?? "").utf8))
                    return .object([:])
                }
                context.onOperation("fork") { _ in
                    let result = fixtureFork()
                    return .object(["forked": .bool(result > 0),
                                    "error": result < 0 ? .string(String(cString: strerror(-result))) : .null])
                }
                context.onOperation("spin") { _ in
                    var x: UInt64 = 0
                    while true { x &+= 1; if x == 0 { break } }
                    return .integer(Int64(bitPattern: x))
                }
                // Holds its thread without ever suspending until the file `release` exists; first
                // leaves an empty file in the folder `marks`, so a test can count the calls spinning.
                context.onOperation("spin-until") { call in
                    let release = call.input["release"]?.stringValue ?? ""
                    let marks = call.input["marks"]?.stringValue ?? ""
                    FileManager.default.createFile(atPath: marks + "/" + UUID().uuidString, contents: nil)
                    var turns: Int64 = 0
                    while access(release, F_OK) != 0 { turns &+= 1 }
                    return .object(["turns": .integer(turns)])
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
                // Which thread runs the handler (its name in the kernel), before and after it
                // awaits the host, and the host's clock read (a blocking round trip) from the
                // handler's own thread and from a task off it (ProcessEventLoopTests).
                context.onOperation("clock-reads") { _ in
                    let clock = try context.capability(.clock)
                    let atStart = currentThreadName()
                    let onHandler = clock.now()
                    _ = try await context.capability(.storage).query("SELECT count(*) FROM notes")
                    let afterHost = currentThreadName()
                    let offHandler = await Task.detached { clock.now() }.value
                    return .object(["atStart": .string(atStart), "afterHost": .string(afterHost), "afterDetached": .string(currentThreadName()),
                                    "onHandler": .number(onHandler.timeIntervalSince1970), "offHandler": .number(offHandler.timeIntervalSince1970)])
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
                // Files, HTTP, location and sync through the boundary (ProcessCapabilitiesTests).
                context.onOperation("put-file") { call in
                    let files = try context.capability(.files)
                    let bytes = Array(Data(base64Encoded: call.input["base64"]?.stringValue ?? "") ?? Data())
                    let repeatCount = Int(call.input["repeat"]?.integerValue ?? 1)
                    let writer = try await files.writer(mediaType: call.input["mediaType"]?.stringValue)
                    for _ in 0..<repeatCount { try await writer.write(bytes) }
                    let stored = try await writer.finish()
                    if let id = call.input["linkTo"]?.stringValue {
                        try await context.capability(.storage).write { $0.put("notes", id: id, ["text": .text(stored.address)]) }
                        try await files.link(stored.address, table: "notes", id: id)
                    }
                    return stored.json
                }
                // Opens writers and leaves them open (the host holds each until it ends): the cap on them.
                context.onOperation("open-writers") { call in
                    let files = try context.capability(.files)
                    var opened = 0
                    for _ in 0..<Int(call.input["count"]?.integerValue ?? 1) {
                        do {
                            let writer = try await files.writer(mediaType: "application/octet-stream")
                            try await writer.write(Array("partial".utf8))
                            opened += 1
                        } catch let error as PluginError {
                            return .object(["opened": .integer(Int64(opened)), "refused": .string(error.code.rawValue), "message": .string(error.message)])
                        }
                    }
                    return .object(["opened": .integer(Int64(opened))])
                }
                context.onOperation("get-file") { call in
                    let files = try context.capability(.files)
                    let address = call.input["address"]?.stringValue ?? ""
                    let range = call.input["from"]?.integerValue.map { $0..<(call.input["to"]?.integerValue ?? $0) }
                    let bytes = try await files.read(address, range: range)
                    let links = try await files.links(of: address)
                    return .object(["base64": .string(Data(bytes).base64EncodedString()), "count": .integer(Int64(bytes.count)),
                                    "links": .array(links.map { .string("\($0.table)/\($0.id)") })])
                }
                context.onOperation("fetch") { call in
                    let http = try context.capability(.http)
                    let response = try await http.send(OutboundRequest(method: "POST", url: call.input["url"]?.stringValue ?? "",
                                                                       headers: ["X-Fixture": "isolated"], body: Array("ping".utf8)))
                    return .object(["status": .integer(Int64(response.status)), "body": .string(response.text),
                                    "hosts": .array(http.grantedHosts.map(JSONValue.string))])
                }
                if context.isGranted(.location) {
                    let feed = try context.capability(.location)
                    context.onLocationFix { fix in
                        try await context.capability(.storage).write {
                            $0.put("notes", id: "fix:\(fix.deviceID):\(fix.timestamp.timeIntervalSince1970)",
                                   ["text": .text("\(fix.latitude),\(fix.longitude)"), "at": .text(fix.timestamp.ISO8601Format())])
                        }
                    }
                    context.onOperation("latest-fix") { call in
                        guard let fix = await feed.latestFix(deviceID: call.input["device"]?.stringValue ?? "") else { return .null }
                        return .object(["latitude": .number(fix.latitude), "longitude": .number(fix.longitude), "battery": fix.battery.map { .integer(Int64($0)) } ?? .null])
                    }
                }
                if context.isGranted(.sync) {
                    let sync = try context.capability(.sync)
                    context.onOperation("sync-calls") { _ in
                        let conflicts = try await sync.conflicts()
                        do {
                            let spaces = try await sync.spaces.list()
                            return .object(["conflicts": .integer(Int64(conflicts.count)), "spaces": .array(spaces.map { .string($0.name) })])
                        } catch let error as PluginError {
                            return .object(["conflicts": .integer(Int64(conflicts.count)), "spacesError": .string(error.code.rawValue)])
                        }
                    }
                    context.onOperation("share") { call in
                        try await context.capability(.storage).write {
                            $0.put("shared", id: call.input["id"]?.stringValue ?? "s", ["text": .text(call.input["text"]?.stringValue ?? "")])
                        }
                        return .null
                    }
                    context.onRemoteChanges { changes in
                        try await context.capability(.storage).write {
                            $0.put("notes", id: "remote:\(changes.rows.count)", ["text": .text(changes.rows.map { "\($0.table)/\($0.id)" }.joined(separator: ","))])
                        }
                    }
                }
                context.log.info("the isolated fixture started in process \(getpid())")
            }
        }

        /// The process id the library's C constructor ran in (its `fixture_constructor_pid`).
        @_silgen_name("fixture_constructor_pid")
        func fixtureConstructorPID() -> Int32

        /// `fork()` from C (Swift does not offer it): the child's pid, or -errno.
        @_silgen_name("fixture_fork")
        func fixtureFork() -> Int32

        @_cdecl("tessera_plugin_entry")
        public func tesseraPluginEntry(_ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
            PluginExport.descriptor(id: "fixture.isolated") { IsolatedPlugin() }
        }
        """#
}
