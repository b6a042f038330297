/// The Swift sources of the test plugins.
enum PluginSources {
    static func source(for kind: PluginBuilder.Kind) -> String {
        switch kind {
        case .good, .staticSDK, .wrongID: return plugin(id: PluginBuilder.pluginID(kind), start: "")
        case .counterA: return counter(build: "A")
        case .counterB: return counter(build: "B")
        case .isolated: return IsolatedPluginSource.swift
        case .startThrows:
            return plugin(id: PluginBuilder.pluginID(kind), start: #"throw PluginError(.unavailable, "the fixture refuses to start")"#)
        case .noEntry:
            return plugin(id: PluginBuilder.pluginID(kind), start: "").replacingOccurrences(of: "tessera_plugin_entry", with: "some_other_entry")
        case .handshakeNewerMinor:
            return plugin(id: PluginBuilder.pluginID(kind), start: "").replacingOccurrences(
                of: "    PluginExport.descriptor(id: \"fixture.newer-minor\") { FixturePlugin() }",
                with: """
                    // Hand-made descriptor claiming a newer SDK minor than the stamp (and the host) has.
                    let d = UnsafeMutablePointer<tessera_descriptor_t>.allocate(capacity: 1)
                    d.initialize(to: tessera_descriptor_t())
                    d.pointee.size = UInt32(MemoryLayout<tessera_descriptor_t>.size)
                    d.pointee.magic = TESSERA_DESCRIPTOR_MAGIC
                    d.pointee.sdk_abi_major = TESSERA_SDK_ABI_MAJOR
                    d.pointee.sdk_abi_minor = TESSERA_SDK_ABI_MINOR + 1
                    d.pointee.plugin_id = UnsafePointer(strdup("fixture.newer-minor"))
                    d.pointee.factory = Unmanaged.passRetained(PluginFactory { FixturePlugin() }).toOpaque()
                    return UnsafeRawPointer(d)
                """)
        }
    }

    static func plugin(id: String, start: String) -> String {
        """
        import Foundation
        import TesseraSDK

        final class FixturePlugin: Plugin {
            func start(context: PluginContext) async throws {
                \(start)
                context.onOperation("hello") { call in
                    .object(["hello": call.input["name"] ?? "world", "plugin": .string(context.pluginID)])
                }
            }
        }

        @_cdecl("tessera_plugin_entry")
        public func tesseraPluginEntry(_ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
            PluginExport.descriptor(id: "\(id)") { FixturePlugin() }
        }
        """
    }

    /// The stateful counter of the hot-swap tests.
    static func counter(build: String) -> String {
        """
        import Foundation
        import Synchronization
        import TesseraSDK

        final class Counter: Plugin {
            let count = Mutex<Int64>(0)
            func start(context: PluginContext) async throws {
                context.onOperation("count") { [self] _ in
                    let value = count.withLock { c -> Int64 in c += 1; return c }
                    return .object(["count": .integer(value), "build": "\(build)"])
                }
                // The process answering (the process tier's swap tests).
                context.onOperation("pid") { _ in .object(["pid": .integer(Int64(getpid()))]) }
            }
            func exportState() async throws -> PluginState? {
                PluginState(schema: 1, bytes: Array(String(count.withLock { $0 }).utf8))
            }
            func importState(_ state: PluginState) async throws {
                guard state.schema == 1, let value = Int64(String(decoding: state.bytes, as: UTF8.self)) else {
                    throw PluginError(.invalidInput, "unreadable counter state")
                }
                count.withLock { $0 = value }
            }
        }

        @_cdecl("tessera_plugin_entry")
        public func tesseraPluginEntry(_ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
            PluginExport.descriptor(id: "fixture.counter") { Counter() }
        }
        """
    }
}
