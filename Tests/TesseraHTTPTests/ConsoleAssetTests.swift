import Foundation
import Testing
@testable import TesseraHTTP
import TesseraTestFixtures

/// The console's and the modules' static files: served without a token, with the right types and
/// security headers, and never anything outside a module's folder.
@Suite struct ConsoleAssetTests {
    @Test func theEmbeddedConsoleIsTheConsoleFolder() throws {
        let folder = Fixtures.repositoryRoot + "/console"
        let names = try FileManager.default.subpathsOfDirectory(atPath: folder).filter { name in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: folder + "/" + name, isDirectory: &isFolder) && !isFolder.boolValue
        }.sorted()
        #expect(EmbeddedConsole.files.keys.sorted() == names, "run scripts/embed-console.sh")
        for name in names {
            let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            #expect(EmbeddedConsole.files[name] == text.trimmingCharacters(in: .newlines) || EmbeddedConsole.files[name] == text,
                    "console/\(name) differs from its embedded copy: run scripts/embed-console.sh")
        }
    }

    @Test func theConsoleIsServedWithoutATokenWithItsTypesAndPolicy() async throws {
        try await TestServer.start().use { server in
            let page = try await server.request("GET", "/", as: .none)
            #expect(page.status == 200)
            #expect(page.headers["content-type"] == "text/html; charset=utf-8")
            #expect(page.headers["content-security-policy"]?.contains("script-src 'self'") == true)
            #expect(page.headers["x-content-type-options"] == "nosniff")
            #expect(page.headers["referrer-policy"] == "no-referrer")
            #expect(page.text.contains(#"<main id="main""#))
            for (file, type) in [("app.js", "text/javascript; charset=utf-8"), ("console.css", "text/css; charset=utf-8")] {
                let asset = try await server.request("GET", "/console/\(file)", as: .none)
                #expect(asset.status == 200, "\(file)")
                #expect(asset.headers["content-type"] == type, "\(file)")
            }
            #expect(try await server.request("GET", "/console/nothing.js", as: .none).status == 404)
            #expect(try await server.request("HEAD", "/", as: .none).status == 200)
            #expect(try await server.request("POST", "/", as: .none).status == 405)
            // The API still needs the token.
            #expect(try await server.request("GET", "/v1/plugins", as: .none).status == 401)
        }
    }

    @Test func aModulesPagesAreServedFromItsFolder() async throws {
        try await TestServer.start().use { server in
            let bare = try await server.request("GET", "/ui/test.probe", as: .none)
            #expect(bare.status == 308)
            #expect(bare.headers["location"] == "/ui/test.probe/")
            let index = try await server.request("GET", "/ui/test.probe/", as: .none)
            #expect(index.status == 200)
            #expect(index.text.contains("probe page"))
            #expect(index.headers["content-type"] == "text/html; charset=utf-8")
            #expect(index.headers["content-security-policy"] != nil)
            let cases = [("app.js", "text/javascript; charset=utf-8"), ("style.css", "text/css; charset=utf-8"),
                         ("img/dot.svg", "image/svg+xml"), ("data.bin", "application/octet-stream"), ("index.html", "text/html; charset=utf-8")]
            for (path, type) in cases {
                let file = try await server.request("GET", "/ui/test.probe/\(path)", as: .none)
                #expect(file.status == 200, "\(path)")
                #expect(file.headers["content-type"] == type, "\(path)")
            }
            #expect(try await server.request("GET", "/ui/test.broken/", as: .none).status == 404)  // no ui
            #expect(try await server.request("GET", "/ui/nobody/", as: .none).status == 404)
        }
    }

    @Test func nothingOutsideTheFolderIsReachable() async throws {
        try await TestServer.start().use { server in
            let attempts = [
                "/ui/test.probe/../secret.txt", "/ui/test.probe/%2e%2e/secret.txt", "/ui/test.probe/..%2fsecret.txt",
                "/ui/test.probe/%2E%2E%2Fsecret.txt", "/ui/test.probe/img/../../secret.txt", "/ui/test.probe/escape.txt",
                "/ui/test.probe/.env", "/ui/test.probe/%2eenv", "/ui/test.probe//etc/passwd", "/ui/test.probe/img%00.svg",
                "/ui/test.probe/..\\secret.txt", "/ui/test.probe/img/", "/ui/test.probe/missing.js",
            ]
            for path in attempts {
                let response = try await server.request("GET", path, as: .none)
                #expect(response.status == 404, "\(path): \(response.status)")
                #expect(!response.text.contains(ModuleFiles.secret), "\(path)")
            }
        }
    }

    @Test func contentTypesByExtension() {
        #expect(ContentType.of("a.HTML") == "text/html; charset=utf-8")
        #expect(ContentType.of("chart.mjs") == "text/javascript; charset=utf-8")
        #expect(ContentType.of("README") == "application/octet-stream")
        #expect(ModulePath.components("a/b/") == ["a", "b", "index.html"])
        #expect(ModulePath.components("") == ["index.html"])
        #expect(ModulePath.components("a/%2e%2e") == nil)
        #expect(ModulePath.components("a%2Fb") == nil)
    }
}
