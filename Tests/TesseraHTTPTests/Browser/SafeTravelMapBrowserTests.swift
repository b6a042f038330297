import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The trip on a map with tiles (issue 39, "A map under the route"): where the deployment names a
/// tile server (`http.mapTiles`), the traveller's page draws the route and the positions walked on
/// Leaflet, served by the host from Debian's `libjs-leaflet` — never a CDN — with tiles from the
/// named server (here another HTTP server on loopback, another origin, which the page's
/// Content-Security-Policy allows and only it), and the attribution the deployment gives. Any
/// policy violation or console error fails the test (``HeadlessChromium/quit()``).
@Suite(.needs("chromium")) struct SafeTravelMapBrowserTests {
    static let artifacts = Fixtures.repositoryRoot + "/artifacts"

    // The time limit is a watchdog against a hang, not a measurement.
    @Test(.hangWatchdog, .enabled(if: FileManager.default.fileExists(atPath: "/usr/share/javascript/leaflet/leaflet.js")))
    func theTripIsDrawnOnTilesFromTheDeploymentsTileServer() async throws {
        let executable = try #require(HeadlessChromium.executable)
        // The tile server: another host's listener (another origin), every tile its icon.
        try await TestServer.start(transport: .socket).use { tiles in  // a browser fetches its tiles
            let ws = FixtureWorkspace("http-browser-safetravel-map")
            try ConsoleBrowserTests.copyShippedManifest("safetravel", into: ws)
            ws.writeDeployment(plugins: [["id": "cz.tessera.safetravel",
                                          "config": ["requireGuardians": false, "pinIterations": 1000] as [String: Any],
                                          "grants": ["storage": [:] as [String: Any], "clock": [:] as [String: Any], "location": [:] as [String: Any],
                                                     "notifications": ["spaces": true], "sync": [:] as [String: Any], "files": [:] as [String: Any]]]],
                               extra: ["http": ["mapTiles": ["url": "http://127.0.0.1:\(tiles.port)/favicon.ico?tile={z}/{x}/{y}",
                                                             "attribution": "Tiles © the test's own server"]]])
            let serve = try await ServeProcess.start(ws)
            defer { serve.process.terminate() }
            let token = try #require(serve.adminToken)
            for (path, body) in [("/v1/plugins/cz.tessera.safetravel/ops/account-setup", #"{"username": "ada", "pin": "4826"}"#),
                                 ("/v1/plugins/cz.tessera.safetravel/ops/trip-start",
                                  #"{"destination": {"name": "Home", "lat": 50.088, "lon": 14.42}, "route": [{"lat": 50.07, "lon": 14.42}, {"lat": 50.088, "lon": 14.42}]}"#)] {
                let answer = try await SafeTravelBrowserTests.post(serve, path, body, token: token)
                #expect(!answer.contains("\"error\""), "\(answer)")
            }
            for minute in 0..<3 {
                _ = try await SafeTravelBrowserTests.post(serve, "/v1/location", #"{"_type": "location", "lat": \#(50.07 + 0.002 * Double(minute)), "lon": 14.42, "tst": \#(1_772_438_400 + minute * 60), "acc": 8, "batt": 80, "topic": "owntracks/ada/phone"}"#, token: token)
                _ = try await SafeTravelBrowserTests.post(serve, "/v1/clock/advance", #"{"by": "1m"}"#, token: token)
            }
            // The policy names the tile server's origin, and only on this deployment.
            let page = try await RawHTTPClient.request(port: serve.port, "GET", "/ui/cz.tessera.safetravel/")
            #expect(page.headers["content-security-policy"]?.contains("img-src 'self' data: http://127.0.0.1:\(tiles.port);") == true)

            let base = "http://127.0.0.1:\(serve.port)"
            let browser = try await HeadlessChromium.launch(executable: executable)
            defer { browser.quit() }
            let tab = try await onThread { try BrowserPage(browser) }
            try await onThread {
                try ConsoleBrowserTests.signIn(tab, at: base, with: token)
                try tab.navigate(base + "/ui/cz.tessera.safetravel/")
                try tab.waitFor("document.body.dataset.ready === 'true' && document.getElementById('map').dataset.drawn === 'true'", "the map")
                try tab.waitFor("document.querySelectorAll('#map img.leaflet-tile-loaded').length > 0", "a tile from the tile server")
            }
            #expect(try await onThread { try tab.evaluate("getComputedStyle(document.getElementById('track')).display") } == "none")
            #expect(try await onThread { try tab.evaluate("[...document.querySelectorAll('#map path.route')].length") }.doubleValue == 1)
            #expect(try await onThread { try tab.evaluate("[...document.querySelectorAll('#map path.walked')].length") }.doubleValue == 1)
            #expect(try await onThread { try tab.evaluate("[...document.querySelectorAll('#map path.destination')].length") }.doubleValue == 1)
            let tile = try await onThread { try tab.evaluate("document.querySelector('#map img.leaflet-tile').src").stringValue ?? "" }
            #expect(tile.hasPrefix("http://127.0.0.1:\(tiles.port)/favicon.ico?tile="), "\(tile)")
            let leaflet = try await onThread { try tab.evaluate("[...document.scripts].map((s) => s.src).find((s) => s.includes('leaflet'))").stringValue ?? "" }
            #expect(leaflet == base + "/console/vendor/leaflet/leaflet.js")
            #expect(try await onThread { try tab.evaluate("document.querySelector('.leaflet-control-attribution').textContent").stringValue?
                .contains("Tiles © the test's own server") } == true)
            #expect(try await onThread { try tab.developerText() } == [])
            try await onThread {
                try tab.use(.phone)
                try tab.screenshots("safetravel-map", in: Self.artifacts)
            }
            #expect(try await onThread { try tab.fitsItsWidth() })
            _ = try await serve.terminate()
        }
    }
}
