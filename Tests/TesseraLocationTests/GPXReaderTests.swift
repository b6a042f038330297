import Foundation
import Testing
import TesseraLocation

/// The fixtures live beside this file, found from its path so the tests need no bundle resources.
func fixtureURL(_ name: String) -> URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/\(name)")
}

@Suite struct GPXReaderTests {
    @Test func readsAnHourLongWalkAcrossTwoSegments() throws {
        let document = try GPXReader().read(contentsOf: fixtureURL("walk.gpx"))
        let points = document.trackPoints
        #expect(points.count == 361)
        #expect(document.routePoints.isEmpty && document.waypoints.isEmpty)
        #expect(points[0].latitude == 49.1951 && points[0].longitude == 16.6068 && points[0].elevation == 210.0)
        let start = Date(timeIntervalSince1970: 1_714_550_400)  // 2024-05-01T08:00:00Z
        #expect(points[0].time == start)
        #expect(points[360].time == start + 3600)
        #expect(points.indices.allSatisfy { points[$0].time == start + Double($0) * 10 })
        #expect(points.allSatisfy { $0.kind == .track })
    }

    @Test func readsRoutesAndWaypointsAndReplaysTheRouteWhenThereIsNoTrack() throws {
        let gpx = """
            <?xml version="1.0"?>
            <gpx version="1.1" creator="t" xmlns="http://www.topografix.com/GPX/1/1">
              <wpt lat="49.1" lon="16.1"><name>Start</name></wpt>
              <rte><rtept lat="49.2" lon="16.2"/><rtept lat="49.3" lon="16.3"><ele>300</ele></rtept></rte>
            </gpx>
            """
        let document = try GPXReader().read(Data(gpx.utf8))
        #expect(document.waypoints.map(\.latitude) == [49.1])
        #expect(document.routePoints.map(\.latitude) == [49.2, 49.3])
        #expect(document.routePoints[1].elevation == 300 && document.routePoints[0].time == nil)
        #expect(document.replayPoints == document.routePoints)
    }

    @Test func readsTimesWithFractionsAndOffsets() throws {
        let gpx = """
            <gpx version="1.1"><trk><trkseg>
            <trkpt lat="1" lon="2"><time>2024-05-01T08:00:00.250Z</time></trkpt>
            <trkpt lat="1" lon="2"><time>2024-05-01T10:00:01+02:00</time></trkpt>
            </trkseg></trk></gpx>
            """
        let points = try GPXReader().read(Data(gpx.utf8)).trackPoints
        #expect(points[0].time == Date(timeIntervalSince1970: 1_714_550_400.25))
        #expect(points[1].time == Date(timeIntervalSince1970: 1_714_550_401))
    }

    @Test(arguments: [
        ("<gpx><trk><trkseg>\n<trkpt lat=\"1\" lon=\"2\">\n</trkseg></trk></gpx>", 3, "an end tag does not match"),
        ("<gpx><trk>\n<trkseg>", 2, "ends inside an element"),
        ("<gpx>\n<trk><trkseg>\n\n<trkpt lon=\"2\"/></trkseg></trk></gpx>", 4, "<trkpt> needs lat"),
        ("<gpx>\n<wpt lat=\"91\" lon=\"2\"/></gpx>", 2, "lat=91"),
        ("<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\">\n<time>yesterday</time></trkpt></trkseg></trk></gpx>", 2, "<time> is not an ISO 8601"),
        ("<gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\">\n\n<ele>high</ele></trkpt></trkseg></trk></gpx>", 3, "<ele> is not a number"),
        ("<kml>\n</kml>", 1, "not <gpx>"),
        ("", 0, "no <gpx> element"),
    ])
    func malformedGPXIsAnErrorWithALineNumber(_ text: String, _ line: Int, _ message: String) {
        do {
            _ = try GPXReader().read(Data(text.utf8))
            Issue.record("expected an error for \(text)")
        } catch {
            if line > 0 { #expect(error.line == line, "\(error)") }
            #expect(error.message.contains(message), "\(error)")
        }
    }

    @Test func aMissingFileIsAnError() {
        #expect(throws: GPXError.self) { try GPXReader().read(contentsOf: fixtureURL("no-such.gpx")) }
    }
}
