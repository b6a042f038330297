import Foundation
import Testing
@testable import TesseraIsolation
@testable import TesseraRuntime
import TesseraSchema
import TesseraSDK
import TesseraTestFixtures

/// The capability protocol is declared once (docs/capability-protocol.md): every method declared
/// in `TesseraIsolation/Protocol/` is answered by a provider's handler and nothing else is; each
/// declaration is a well-formed JSON Schema pair named after its capability; the document lists
/// exactly the declared methods; and the two sides agree on a version at `load`.
@Suite struct CapabilityProtocolTests {
    static let declared = CapabilityProtocol.methods

    @Test func everyDeclaredMethodIsAnsweredAndNothingElseIs() async throws {
        let ws = FixtureWorkspace("capability-protocol")
        ws.writeDeployment(plugins: [])
        let host = try await startHost(ws)
        try await withCleanup({ await host.stop() }) {
            let answered = host.providers.childCalls.names
            let names = Set(Self.declared.map(\.name))
            #expect(names.count == Self.declared.count, "a method is declared twice")
            #expect(answered.subtracting(names).isEmpty, "answered but not declared: \(answered.subtracting(names).sorted())")
            #expect(names.subtracting(answered).isEmpty, "declared but not answered: \(names.subtracting(answered).sorted())")
        }
    }

    @Test func eachMethodIsNamedAfterItsCapabilityAndItsSchemasCompile() throws {
        for method in Self.declared {
            let prefix = method.name.split(separator: ".").first.map(String.init)
            switch method.capability {
            case nil: #expect(method.name == "log")
            case "sync": #expect(prefix == "sync" || prefix == "spaces", "\(method.name)")
            case let capability?: #expect(prefix == capability, "\(method.name) is answered by \(capability)")
            }
            #expect(!method.summary.isEmpty && method.summary.hasSuffix("."), "\(method.name)")
            _ = try JSONSchema(method.parameters)
            _ = try JSONSchema(method.result)
        }
    }

    @Test func theDocumentListsExactlyTheDeclaredMethodsInOrder() throws {
        let text = try String(contentsOfFile: Fixtures.repositoryRoot + "/docs/capability-protocol.md", encoding: .utf8)
        // Rows of the methods table: | `name` | `capability` or every plugin | sentence |
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("| `") }.map { line in
            line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let listed = rows.map { ($0[0].trimmingCharacters(in: CharacterSet(charactersIn: "`")), $0[1]) }
        let declared = Self.declared.map { ($0.name, $0.capability.map { "`\($0)`" } ?? "every plugin") }
        #expect(listed.map(\.0) == declared.map(\.0))
        #expect(listed.map(\.1) == declared.map(\.1))
    }

    @Test func aVersionIsAgreedAtLoadOrTheLoadIsRefused() async throws {
        #expect(CapabilityProtocol.agree(offered: [1]) == 1)
        #expect(CapabilityProtocol.agree(offered: [1, 99]) == 1, "the highest both speak")
        #expect(CapabilityProtocol.agree(offered: [99]) == nil)
        #expect(CapabilityProtocol.supported.contains(CapabilityProtocol.version))
        // A host that offers only a version this process does not speak: refused at gate 3,
        // before any library is opened.
        let session = ChildSession(sandbox: .none)
        let answer = try await session.handle(ChildMethod.load, ["path": "/nonexistent/plugin.so", "pluginID": "x", "protocols": [99]])
        #expect(answer["refused"]?["gate"] == 3)
        #expect(answer["refused"]?["field"] == "capability protocol")
    }
}
