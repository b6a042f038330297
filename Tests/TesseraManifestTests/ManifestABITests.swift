import Foundation
import Testing
import TesseraManifest
import TesseraSDK
import TesseraTestFixtures

/// The manifest's `abi` (docs/c-abi.md): a Swift plugin names the toolchain it was built with; a
/// C-ABI plugin names none, since no compiler of the host's matters to it.
@Suite struct ManifestABITests {
    static func manifest(_ edit: (inout [String: JSONValue]) -> Void) throws(ManifestError) -> PluginManifest {
        var doc = try! JSONValue(parsing: String(contentsOfFile: Fixtures.repositoryRoot + "/manifests/c-notes.json", encoding: .utf8)).objectValue!
        edit(&doc)
        return try ManifestReader.read(file: "/tmp/c-notes.json", content: Data(JSONValue.object(doc).serialized().utf8))
    }

    @Test func theShippedCABIManifestsSayCAndNameNoToolchain() throws {
        for name in ["c-notes", "rust-notes"] {
            let manifest = try ManifestReader.read(file: Fixtures.repositoryRoot + "/manifests/\(name).json")
            #expect(manifest.abi == .c)
            #expect(manifest.toolchain == "")
            #expect(manifest.sdkABI.major == 1 && manifest.sdkABI.minor == 0)
        }
        #expect(try ManifestReader.read(file: Fixtures.exampleManifest).abi == .swift)
    }

    @Test func aCABIManifestThatNamesAToolchainIsRefusedNamingTheField() {
        let error = #expect(throws: ManifestError.self) {
            try Self.manifest { $0["sdk"] = ["abi": "1.0", "toolchain": "6.3.1"] }
        }
        #expect("\(error!)".contains("$.sdk.toolchain"), "\(error!)")
    }

    @Test func aSwiftManifestWithoutAToolchainIsRefusedNamingTheField() {
        let error = #expect(throws: ManifestError.self) {
            try Self.manifest { $0["abi"] = nil }
        }
        #expect("\(error!)".contains("$.sdk.toolchain"), "\(error!)")
        let unknown = #expect(throws: ManifestError.self) {
            try Self.manifest { $0["abi"] = "zig" }
        }
        #expect("\(unknown!)".contains("abi"), "\(unknown!)")
    }
}
