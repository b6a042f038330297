import Foundation
import Testing
@_spi(TesseraHost) import TesseraSDK

/// A clock that never moves: enough to see the context hand back what was granted.
final class StoppedClock: HostClock {
    let instant = Date(timeIntervalSince1970: 0)
    func now() -> Date { instant }
    func sleep(until deadline: Date) async throws {}
    func schedule(_ timer: TimerRequest) async throws {}
    func cancelTimer(key: String) async throws {}
    func pendingTimers() async throws -> [TimerRequest] { [] }
}

@Suite struct PluginContextTests {
    @Test func handsBackExactlyWhatWasGranted() throws {
        let clock = StoppedClock()
        let context = PluginContext(pluginID: "p", config: [:], capabilities: [GrantedCapability(.clock, clock as any HostClock)], log: .discarding)
        #expect(try context.capability(.clock) as? StoppedClock === clock)
        #expect(context.isGranted(.clock))
        #expect(!context.isGranted(.storage))
        #expect(context.grantedCapabilities == ["clock"])
        let error = try #require(throws: PluginError.self) { _ = try context.capability(.storage) }
        #expect(error.code == .notGranted)
        #expect(error.message.contains("'storage'"))
    }

    @Test func anObjectGrantedUnderTheWrongKeyIsNotHandedOut() {
        // Granted as a clock under the name "storage": the storage key must not return it.
        let context = PluginContext(pluginID: "p", config: [:],
                                    capabilities: [GrantedCapability(CapabilityKey<any HostClock>("storage"), StoppedClock() as any HostClock)],
                                    log: .discarding)
        #expect(!context.isGranted(.storage))
    }

    @Test func typedOperationsDecodeTheirInputAndNameAMismatch() async throws {
        struct In: Decodable, Sendable { let n: Int }
        struct Out: Encodable, Sendable { let twice: Int }
        let context = PluginContext(pluginID: "p", config: [:], capabilities: [], log: .discarding)
        context.onOperation("double", input: In.self) { input, _ in Out(twice: input.n * 2) }
        let handler = try #require(context.operationHandler("double"))
        let principal = Principal(id: "u", role: .user)
        #expect(try await handler(OperationCall(operation: "double", input: ["n": 21], principal: principal)) == ["twice": 42])
        await #expect(throws: PluginError.self) {
            _ = try await handler(OperationCall(operation: "double", input: ["n": "x"], principal: principal))
        }
        #expect(context.registeredOperations == ["double"])
    }

    @Test func theHostForgetsAStoppedPluginsHandlersAndTheContextTheyHeld() {
        weak var released: PluginContext?
        do {
            let context = PluginContext(pluginID: "p", config: [:], capabilities: [], log: .discarding)
            released = context
            // The usual way to reach a capability from a handler: the handler holds the context.
            context.onOperation("ping") { _ in .string(context.pluginID) }
            context.onTimer("tick") { _ in _ = context.pluginID }
            #expect(context.hostHandlers.operation("ping") != nil)
            context.removeAllHandlers()
            #expect(context.hostHandlers.operation("ping") == nil && context.hostHandlers.timer("tick") == nil)
            #expect(context.registeredOperations.isEmpty)
        }
        #expect(released == nil)
    }
}
