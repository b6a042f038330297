import Foundation
import Testing
@testable import TesseraLoader
import TesseraTestFixtures

/// Staging: a build copied to its content address, hashed from the copy, mapped for gate 1.
@Suite struct StagingTests {
    func build(_ bytes: [UInt8], in folder: String, name: String = "libPlugin.so") throws -> String {
        let path = folder + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func theCopyIsNamedByTheHashOfItsBytesAndMappedAsTheyAre() throws {
        let folder = Fixtures.temporaryDirectory("staging")
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }
        let source = try build(bytes, in: folder)
        let staged = try GenerationStore(root: folder + "/generations").stage(source)
        #expect(staged.sha256 == SHA256.hex(of: bytes))
        #expect(staged.path == folder + "/generations/\(staged.sha256)-libPlugin.so")
        #expect(try Data(contentsOf: URL(fileURLWithPath: staged.path)) == Data(bytes))
        #expect(staged.contents.count == bytes.count)
        #expect(staged.contents.withUnsafeBytes { Array($0) } == bytes)
        #expect(staged.contents.copy(1000..<1010) == Array(bytes[1000..<1010]))
    }

    @Test func aBuildChangedAfterStagingLeavesTheCopyAlone() throws {
        let folder = Fixtures.temporaryDirectory("staging")
        let source = try build(Array(repeating: 1, count: 10_000), in: folder)
        let staged = try GenerationStore(root: folder + "/generations").stage(source)
        // Rewritten in place (as `cp` does), not replaced: the copy and its mapping keep the old bytes.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: source))
        try handle.write(contentsOf: Data(repeating: 2, count: 10_000))
        try handle.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: staged.path)) == Data(repeating: 1, count: 10_000))
        #expect(staged.contents.withUnsafeBytes { $0.allSatisfy { $0 == 1 } })
        let again = try GenerationStore(root: folder + "/generations").stage(source)
        #expect(again.path != staged.path)
    }

    @Test func stagingTheSameBuildTwiceGivesOnePathAndLeavesNoPartialFiles() throws {
        let folder = Fixtures.temporaryDirectory("staging")
        let source = try build(Array("same build".utf8), in: folder)
        let store = GenerationStore(root: folder + "/generations")
        let first = try store.stage(source)
        let second = try store.stage(source)
        #expect(first.path == second.path)
        #expect(first.contents.withUnsafeBytes { Array($0) } == Array("same build".utf8))  // still mapped
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.root) == [(first.path as NSString).lastPathComponent])
    }

    @Test func aMissingBuildIsAnErrorAndLeavesNothingBehind() throws {
        let folder = Fixtures.temporaryDirectory("staging")
        let store = GenerationStore(root: folder + "/generations")
        #expect(throws: (any Error).self) { try store.stage(folder + "/libMissing.so") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.root).isEmpty)
    }

    @Test func anEmptyBuildIsStagedAndRefusedByGateOne() throws {
        let folder = Fixtures.temporaryDirectory("staging")
        let staged = try GenerationStore(root: folder + "/generations").stage(try build([], in: folder))
        #expect(staged.contents.count == 0)
        let error = #expect(throws: GateRefusal.self) { try FileGate.verify(staged, manifest: nil, host: .current) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("empty"))
    }
}
