import Foundation
import Testing
import TesseraManifest
import TesseraRuntime
import TesseraSDK
import TesseraTestFixtures

/// What the host delivers to a C-ABI plugin's `receive` (tessera_plugin.h): an event another
/// plugin published, and a location fix, each in the JSON the header names, in both tiers. The
/// plugin is a small C library built here with `cc`; it keeps what it received and answers it.
@Suite(.hangWatchdog) struct CABIDeliveryTests {
    /// `start` routes the event `test.pub/pinged` and location fixes to it; `receive` keeps
    /// `{"kind": …, "payload": …}` of each; `received` answers them as an array.
    static let source = #"""
        #include <stdlib.h>
        #include <string.h>
        #include "tessera_plugin.h"
        TESSERA_C_PLUGIN_STAMP
        typedef struct { char *log; size_t length; } seen_t;
        static int32_t bytes(tessera_buffer_t *out, const char *s, size_t n, int32_t status) {
            out->length = n; out->data = malloc(n ? n : 1); memcpy(out->data, s, n); return status;
        }
        static void append(seen_t *seen, const char *s, size_t n) {
            seen->log = realloc(seen->log, seen->length + n + 1); memcpy(seen->log + seen->length, s, n); seen->length += n;
        }
        static void *create(const tessera_host_api_t *h, void *c) { (void)h; (void)c; return calloc(1, sizeof(seen_t)); }
        static int32_t start(void *i, const uint8_t *c, size_t n, tessera_buffer_t *r) {
            (void)i; (void)c; (void)n;
            const char *routes = "{\"operations\":[\"received\"],\"events\":[\"test.pub/pinged\"],\"location\":true}";
            return bytes(r, routes, strlen(routes), TESSERA_OK);
        }
        static int32_t handle(void *i, const char *op, const uint8_t *call, size_t n, tessera_buffer_t *r) {
            seen_t *seen = i; (void)op; (void)call; (void)n;
            append(seen, "", 0);
            char *text = malloc(seen->length + 3);
            text[0] = '['; memcpy(text + 1, seen->log, seen->length); text[seen->length + 1] = ']';
            int32_t status = bytes(r, text, seen->length + 2, TESSERA_OK);
            free(text);
            return status;
        }
        static int32_t receive(void *i, const char *kind, const uint8_t *p, size_t n, tessera_buffer_t *r) {
            seen_t *seen = i; (void)r;
            if (seen->length) append(seen, ",", 1);
            append(seen, "{\"kind\":\"", 9); append(seen, kind, strlen(kind)); append(seen, "\",\"payload\":", 12);
            append(seen, (const char *)p, n); append(seen, "}", 1);
            return TESSERA_OK;
        }
        static int32_t export_state(void *i, uint32_t *s, tessera_buffer_t *b) { (void)i; (void)s; (void)b; return TESSERA_OK; }
        static int32_t import_state(void *i, uint32_t s, const uint8_t *b, size_t n, tessera_buffer_t *r) {
            (void)i; (void)s; (void)b; (void)n; (void)r; return TESSERA_OK;
        }
        static void stop(void *i) { (void)i; }
        static void destroy(void *i) { seen_t *seen = i; free(seen->log); free(seen); }
        static void free_buffer(tessera_buffer_t *b) { free(b->data); b->data = NULL; b->length = 0; }
        static const tessera_plugin_api_t table = {
            sizeof(tessera_plugin_api_t), TESSERA_C_PLUGIN_MAGIC, TESSERA_C_ABI_MAJOR, TESSERA_C_ABI_MINOR, "fixture.c-seen", NULL,
            create, start, handle, receive, export_state, import_state, stop, destroy, free_buffer, {0}};
        __attribute__((visibility("default"))) const tessera_plugin_api_t *tessera_c_plugin_entry(uint32_t major, uint32_t minor) {
            (void)minor; return major == TESSERA_C_ABI_MAJOR ? &table : NULL;
        }
        """#

    /// Publishes `pinged` with the input as its payload.
    final class Publisher: Plugin {
        func start(context: PluginContext) async throws {
            let events = try context.capability(.events)
            context.onOperation("ping") { call in try await events.publish("pinged", call.input); return [:] }
        }
    }

    @Test(arguments: ["inProcess", "process"])
    func anEventAndALocationFixReachReceiveAsTheHeaderSays(isolation: String) async throws {
        let ws = FixtureWorkspace("c-abi-delivery-\(isolation)")
        Fixtures.write(Self.source, to: ws.root + "/seen.c")
        let build = try await runDetached("/usr/bin/env", ["cc", "-std=c11", "-Wall", "-shared", "-fPIC", "-fvisibility=hidden",
                                                           "-I", Fixtures.repositoryRoot + "/sdk/Sources/CTesseraABI/include",
                                                           ws.root + "/seen.c", "-o", ws.root + "/libseen.so"])
        #expect(build.status == 0, "\(build.stderr)")
        let anyObject: [String: Any] = ["type": "object"]
        ws.addManifest(id: "test.pub", library: ws.root + "/none.so") { m in
            m["requires"] = [["capability": "events", "version": "^1.0"]]
            m["operations"] = [["name": "ping", "input": anyObject, "output": anyObject]]
            m["events"] = ["emits": [["name": "pinged"]]]
        }
        ws.addManifest(id: "fixture.c-seen", library: ws.root + "/libseen.so") { m in
            m["abi"] = "c"
            m["sdk"] = ["abi": "1.0"]
            m["requires"] = [["capability": "location", "version": "^1.0"]]
            m["operations"] = [["name": "received", "input": anyObject, "output": ["type": "array"] as [String: Any]]]
            m["events"] = ["consumes": ["test.pub/pinged"]]
        }
        ws.writeDeployment(plugins: [entry("test.pub", grants: ["events": [:] as [String: Any]]),
                                     entry("fixture.c-seen", grants: ["location": [:] as [String: Any]], extra: ["isolation": isolation])])
        let host = try PluginHost(deployment: DeploymentReader.read(file: ws.deploymentFile), options: HostOptions(
            dataDirectory: ws.dataDirectory, inProcessPlugins: ["test.pub": PluginFactory { Publisher() }]))
        await host.start()
        #expect(host.status(of: "fixture.c-seen")?.state == .active, "\(host.status(of: "fixture.c-seen")?.history ?? [])")
        _ = try await host.call("test.pub", "ping", input: ["n": 1], as: user)
        await host.settle()
        let fix = LocationFix(latitude: 50.0755, longitude: 14.4378, timestamp: host.clock.now(), deviceID: "phone")
        #expect(await host.ingestLocation([fix]).accepted == 1)
        await host.settle()
        let received = try await host.call("fixture.c-seen", "received", input: [:], as: user).arrayValue ?? []
        #expect(received.map { $0["kind"] } == ["event", "location"], "\(received)")
        let event = received.first?["payload"]
        #expect(event?["qualifiedName"] == "test.pub/pinged")
        #expect(event?["event"]?["publisher"] == "test.pub" && event?["event"]?["name"] == "pinged")
        #expect(event?["event"]?["payload"] == ["n": 1] && event?["event"]?["sequence"] == 1)
        let location = received.last?["payload"]
        #expect(location?["latitude"] == .number(50.0755) && location?["deviceID"] == "phone", "\(String(describing: location))")
        await host.stop()
    }
}
