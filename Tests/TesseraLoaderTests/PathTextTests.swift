import Foundation
import Testing
@testable import TesseraLoader

/// The loader's path helpers give what `NSString` gives, which they replace on the load path.
@Suite struct PathTextTests {
    static let paths = ["/a/b.so", "/a/b/", "b.so", "/", "/a//b.so", "a/b c.so", "/tmp/lb/builds/h3.so", "/a/b.so//", "", "./libX.so"]

    @Test func aFileNameIsNSStringsLastPathComponent() {
        for path in Self.paths {
            #expect(PathText.fileName(of: path) == (path as NSString).lastPathComponent, "\(path)")
        }
    }

    @Test func aJoinedPathIsNSStringsAppendingPathComponent() {
        for folder in ["/var/tessera/generations", "/var/tessera/generations/", "generations", "/"] {
            for name in ["abc-h.so", ".index", ".partial-1-2-h.so"] {
                #expect(PathText.join(folder, name) == (folder as NSString).appendingPathComponent(name), "\(folder) + \(name)")
            }
        }
    }
}
