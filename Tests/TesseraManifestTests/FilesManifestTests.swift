import Foundation
import Testing
import TesseraManifest
import TesseraSDK
import TesseraTestFixtures

/// The manifest's side of the files capability: an operation's `"file"`, and the `files` permission.
@Suite struct FilesManifestTests {
    static func example() throws -> [String: JSONValue] {
        try JSONValue(parsing: String(contentsOfFile: Fixtures.exampleManifest, encoding: .utf8)).objectValue ?? [:]
    }

    static func fileOperation(_ doc: [String: JSONValue], _ transfer: String) -> JSONValue {
        var operation = doc["operations"]!.arrayValue![0].objectValue!
        operation["file"] = .string(transfer)
        return .object(operation)
    }

    @Test func anUploadOperationIsReadWithItsFilesPermission() throws {
        var doc = try Self.example()
        doc["requires"] = .array(doc["requires"]!.arrayValue! + [["capability": "files", "version": "^1.0"]])
        doc["permissions"] = ["files": ["mediaTypes": ["image/jpeg"], "quotaMB": 10, "maxFileMB": 2]]
        doc["operations"] = [Self.fileOperation(doc, "upload")]
        let manifest = try ManifestReader.decode(.object(doc), file: "m.json")
        #expect(manifest.operations[0].file == .upload)
    }

    @Test func aFileOperationWithoutTheFilesCapabilityIsRefusedNamingIt() throws {
        var doc = try Self.example()
        doc["operations"] = [Self.fileOperation(doc, "download")]
        let error = try #require(throws: ManifestError.self) { try ManifestReader.decode(.object(doc), file: "m.json") }
        #expect(error.path == "$.operations[0].file")
        #expect(error.expected.contains("files"))
    }

    @Test func aMediaTypeTheHostCannotRecogniseIsRefusedByTheSchema() throws {
        var doc = try Self.example()
        doc["requires"] = .array(doc["requires"]!.arrayValue! + [["capability": "files", "version": "^1.0"]])
        doc["permissions"] = ["files": ["mediaTypes": ["image/tiff"]]]
        let error = try #require(throws: ManifestError.self) { try ManifestReader.decode(.object(doc), file: "m.json") }
        #expect(error.path.hasPrefix("$.permissions.files.mediaTypes"))
    }
}
