import Foundation
import Testing
import TesseraLoader
import TesseraTestFixtures

/// The three gates for a C-ABI plugin (tessera_plugin.h, docs/c-abi.md), on the real library of the
/// C plugin SwiftPM builds (`Plugins/CNotes`): its stamp carries the C ABI version and no compiler,
/// so a host built by another Swift still loads it, while the Swift example is refused there.
@Suite struct CABIGateTests {
    static var cLibrary: String { Fixtures.buildDirectory + "/libTesseraCNotes.so" }

    /// This host as if it had been built by another Swift toolchain.
    static let otherSwiftHost = HostIdentity(sdkABIMajor: HostIdentity.current.sdkABIMajor, sdkABIMinor: HostIdentity.current.sdkABIMinor,
                                             toolchain: "clang version 19.0.0 (a later Swift)", swiftVersion: "6.4", hostVersion: tesseraVersion)

    @Test func theStampSaysCABIAndGate1PassesWithoutTheSDK() throws {
        let library = try FileGate.verify(path: Self.cLibrary, manifest: nil, host: .current)
        #expect(library.stamp.isCABI)
        #expect(library.stamp.toolchain == "")
        #expect(library.stamp.cABIMajor == 1 && library.stamp.cABIMinor == 0)
        #expect(library.stamp.sdkABIMajor == 0)
    }

    @Test func aHostBuiltByAnotherSwiftLoadsTheCPluginAndRefusesTheSwiftOne() throws {
        _ = try FileGate.verify(path: Self.cLibrary, manifest: nil, host: Self.otherSwiftHost)
        let refusal = #expect(throws: GateRefusal.self) {
            try FileGate.verify(path: Fixtures.exampleLibrary, manifest: nil, host: Self.otherSwiftHost)
        }
        #expect(refusal?.field == "toolchain")
    }

    @Test func aHostOfAnotherCABIMajorRefusesItAtGate1() {
        let newer = HostIdentity(sdkABIMajor: 1, sdkABIMinor: 10, toolchain: "x", swiftVersion: "6.3.1", hostVersion: tesseraVersion,
                                 cABIMajor: 2, cABIMinor: 0)
        let refusal = #expect(throws: GateRefusal.self) { try FileGate.verify(path: Self.cLibrary, manifest: nil, host: newer) }
        #expect(refusal?.gate == 1 && refusal?.field == "c.abi.major")
    }

    @Test func gates2And3ReadTheTableItsIDAndItsMigrations() throws {
        let (_, handshake) = try LibraryLoader.openAndShakeHands(path: Self.cLibrary, isCABI: true, expectedID: "dev.tessera.c-notes")
        guard case .c(let table) = handshake.code else { Issue.record("not a C table"); return }
        #expect(table.pluginID == "dev.tessera.c-notes")
        #expect(table.migrations.map(\.version) == [1])
        #expect(table.migrations.first?.sql.contains("CREATE TABLE notes") == true)
        #expect(handshake.reportedABI.major == 1 && handshake.reportedABI.minor == 0)
        let wrongID = #expect(throws: GateRefusal.self) {
            try LibraryLoader.openAndShakeHands(path: Self.cLibrary, isCABI: true, expectedID: "dev.tessera.other")
        }
        #expect(wrongID?.gate == 3 && wrongID?.field == "id")
    }

    @Test func aSwiftLibraryHasNoCEntryAndIsRefusedAtGate2() {
        let refusal = #expect(throws: GateRefusal.self) {
            try LibraryLoader.openAndShakeHands(path: Fixtures.exampleLibrary, isCABI: true, expectedID: nil)
        }
        #expect(refusal?.gate == 2 && refusal?.field == "entry")
    }
}
