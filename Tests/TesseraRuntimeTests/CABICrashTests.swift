import Foundation
import Testing
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// A C-ABI plugin's crash in the process tier is contained like a Swift plugin's
/// (docs/c-abi.md, docs/isolation.md): the call in flight gets `plugin_crashed` naming the signal,
/// the host and its other plugins serve on, and the plugin restarts after its backoff on the
/// host's clock. The plugin is a small C library built here with `cc`.
@Suite(.hangWatchdog) struct CABICrashTests {
    /// `ping` answers `{"pong": true}`; `crash` dereferences NULL or aborts, as `kind` says.
    static let source = #"""
        #include <signal.h>
        #include <stdlib.h>
        #include <string.h>
        #include "tessera_plugin.h"
        TESSERA_C_PLUGIN_STAMP
        static int32_t text(tessera_buffer_t *out, const char *s, int32_t status) {
            out->length = strlen(s); out->data = malloc(out->length); memcpy(out->data, s, out->length); return status;
        }
        static void *create(const tessera_host_api_t *h, void *c) { (void)h; (void)c; return malloc(1); }
        static int32_t start(void *i, const uint8_t *c, size_t n, tessera_buffer_t *r) {
            (void)i; (void)c; (void)n; return text(r, "{\"operations\":[\"ping\",\"crash\"]}", TESSERA_OK);
        }
        static int32_t handle(void *i, const char *op, const uint8_t *call, size_t n, tessera_buffer_t *r) {
            (void)i;
            if (strcmp(op, "crash") == 0) {
                if (n > 0 && memmem(call, n, "abort", 5)) abort();
                volatile int *nowhere = NULL; *nowhere = 1;
            }
            return text(r, "{\"pong\":true}", TESSERA_OK);
        }
        static int32_t receive(void *i, const char *k, const uint8_t *p, size_t n, tessera_buffer_t *r) {
            (void)i; (void)k; (void)p; (void)n; (void)r; return TESSERA_OK;
        }
        static int32_t export_state(void *i, uint32_t *s, tessera_buffer_t *b) { (void)i; (void)s; (void)b; return TESSERA_OK; }
        static int32_t import_state(void *i, uint32_t s, const uint8_t *b, size_t n, tessera_buffer_t *r) {
            (void)i; (void)s; (void)b; (void)n; (void)r; return TESSERA_OK;
        }
        static void stop(void *i) { (void)i; }
        static void destroy(void *i) { free(i); }
        static void free_buffer(tessera_buffer_t *b) { free(b->data); b->data = NULL; b->length = 0; }
        static const tessera_plugin_api_t table = {
            sizeof(tessera_plugin_api_t), TESSERA_C_PLUGIN_MAGIC, TESSERA_C_ABI_MAJOR, TESSERA_C_ABI_MINOR, "fixture.c-crash", NULL,
            create, start, handle, receive, export_state, import_state, stop, destroy, free_buffer, {0}};
        __attribute__((visibility("default"))) const tessera_plugin_api_t *tessera_c_plugin_entry(uint32_t major, uint32_t minor) {
            (void)minor; return major == TESSERA_C_ABI_MAJOR ? &table : NULL;
        }
        """#

    static func library(in dir: String) async throws -> String {
        Fixtures.write(source, to: dir + "/crash.c")
        let build = try await runDetached("/usr/bin/env", ["cc", "-D_GNU_SOURCE", "-std=c11", "-Wall", "-shared", "-fPIC", "-fvisibility=hidden",
                                                           "-I", Fixtures.repositoryRoot + "/sdk/Sources/CTesseraABI/include",
                                                           dir + "/crash.c", "-o", dir + "/libcrash.so"])
        #expect(build.status == 0, "\(build.stderr)")
        return dir + "/libcrash.so"
    }

    @Test(arguments: [("segfault", "SIGSEGV"), ("abort", "SIGABRT")])
    func aCrashEndsTheChildAloneAndThePluginRestarts(kind: String, signal: String) async throws {
        let ws = FixtureWorkspace("c-abi-crash-\(kind)")
        let library = try await Self.library(in: ws.root)
        ws.addManifest(id: "fixture.c-crash", library: library) { m in
            m["abi"] = "c"
            m["sdk"] = ["abi": "1.0"]
            m["requires"] = [] as [Any]
            m["operations"] = ["ping", "crash"].map { ["name": $0, "input": ["type": "object"] as [String: Any], "output": ["type": "object"] as [String: Any]] }
        }
        ws.addShippedManifest("c-notes")
        try CABIPlugins.prepare()
        ws.writeDeployment(plugins: [entry("fixture.c-crash", grants: [:], extra: ["isolation": "process"]),
                                     entry("dev.tessera.c-notes", grants: ["storage": [:] as [String: Any], "clock": [:] as [String: Any]])])
        let host = try await startHost(ws)
        #expect(try await host.call("fixture.c-crash", "ping", input: [:], as: user)["pong"] == true)
        let first = try #require(host.isolatedProcessID("fixture.c-crash"))
        let crash = await callError(host, "fixture.c-crash", "crash", ["kind": .string(kind)])
        #expect(crash?.code == .pluginCrashed, "\(String(describing: crash))")
        #expect(crash?.message.contains(signal) == true, "\(String(describing: crash))")
        // The host and the C plugin in its own process serve on.
        #expect(try await host.call("dev.tessera.c-notes", "stats", input: [:], as: user)["handled"] == 1)
        _ = try await host.advanceClock(by: 1)
        #expect(try await host.call("fixture.c-crash", "ping", input: [:], as: user)["pong"] == true)
        #expect(host.isolatedProcessID("fixture.c-crash") != first)
        await host.stop()
    }
}
