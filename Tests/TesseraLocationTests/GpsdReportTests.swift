import Foundation
import Testing
import TesseraLocation
import TesseraSDK

/// Single gpsd report lines, as gpsd 3.22 writes them (gpsd_json(5)).
@Suite struct GpsdReportTests {
    static func decode(_ line: String) -> GpsdReport.Outcome {
        GpsdReport.decode(line: Array(line.utf8), fallbackDeviceID: "gpsd:test")
    }

    @Test func a3DFixBecomesAFixWithEveryField() throws {
        let line = #"{"class":"TPV","device":"/dev/ttyACM0","mode":3,"time":"2024-05-01T12:00:02.000Z","ept":0.005,"lat":49.200127167,"lon":16.600194667,"altHAE":295.0,"altMSL":250.0,"alt":250.0,"track":45.0,"speed":9.98,"eph":17.1,"epx":9.0,"epy":12.0}"#
        guard case .fix(let fix) = Self.decode(line) else { Issue.record("no fix"); return }
        #expect(fix.latitude == 49.200127167 && fix.longitude == 16.600194667)
        #expect(fix.altitude == 250 && fix.speed == 9.98 && fix.course == 45 && fix.accuracy == 17.1)
        #expect(fix.timestamp == Date(timeIntervalSince1970: 1_714_564_802))
        #expect(fix.deviceID == "/dev/ttyACM0")
    }

    @Test func accuracyFallsBackToTheLargerOfEpxAndEpyAndAltitudeToHAE() {
        let line = #"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:02Z","lat":1,"lon":2,"altHAE":95.5,"epx":9.0,"epy":12.0}"#
        guard case .fix(let fix) = Self.decode(line) else { Issue.record("no fix"); return }
        #expect(fix.accuracy == 12 && fix.altitude == 95.5 && fix.deviceID == "gpsd:test")
    }

    @Test func a2DFixHasNoAltitude() {
        let line = #"{"class":"TPV","mode":2,"time":"2024-05-01T12:00:02Z","lat":1,"lon":2,"altMSL":250}"#
        guard case .fix(let fix) = Self.decode(line) else { Issue.record("no fix"); return }
        #expect(fix.altitude == nil)
    }

    @Test(arguments: [
        (#"{"class":"VERSION","release":"3.22"}"#, "class VERSION"),
        (#"{"class":"SKY","satellites":[]}"#, "class SKY"),
        (#"{"class":"TPV","mode":1,"time":"2024-05-01T12:00:02Z"}"#, "TPV mode 1 (no fix)"),
        (#"{"class":"TPV","mode":3,"lat":1,"lon":2}"#, "TPV without a readable time"),
        (#"{"class":"TPV","mode":3,"time":"2024-05-01T12:00:02Z","lat":1}"#, "TPV without lat/lon"),
        (#"{"mode":3}"#, "no class"),
        ("HTTP/1.1 400 Bad Request", "not JSON"),
    ])
    func otherReportsAreIgnoredWithAReason(_ line: String, _ reason: String) {
        guard case .ignored(let why) = Self.decode(line) else { Issue.record("decoded \(line)"); return }
        #expect(why.hasPrefix(reason), "\(why)")
    }
}
