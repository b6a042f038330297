import Foundation
import Testing
import TesseraLocation
import TesseraSDK

/// Payloads shaped as the OwnTracks apps send them in HTTP mode (fields per the OwnTracks booklet).
@Suite struct OwnTracksDecoderTests {
    let decoder = OwnTracksDecoder()

    static let iPhoneLocation = """
        {"_type":"location","acc":5,"alt":231,"batt":87,"bs":1,"conn":"w","created_at":1714550401,
         "lat":49.1951,"lon":16.6068,"m":1,"tid":"jp","tst":1714550395,"vac":3,"vel":18,"cog":270,
         "topic":"owntracks/jane/phone","inregions":["home"],"SSID":"home-net","BSSID":"aa:bb:cc:dd:ee:ff"}
        """

    @Test func decodesASingleLocationWithEveryField() throws {
        let batch = decoder.decode(Array(Self.iPhoneLocation.utf8))
        #expect(batch.malformed.isEmpty && batch.skipped.isEmpty)
        let fix = try #require(batch.fixes.first)
        #expect(fix.latitude == 49.1951 && fix.longitude == 16.6068)
        #expect(fix.accuracy == 5 && fix.altitude == 231 && fix.course == 270 && fix.battery == 87)
        #expect(fix.speed == 5, "18 km/h is 5 m/s")
        #expect(fix.timestamp == Date(timeIntervalSince1970: 1_714_550_395))
        #expect(fix.deviceID == "jane/phone")
    }

    @Test func decodesAnArrayAndSetsOtherTypesAsideWithAReason() {
        let body = """
            [{"_type":"location","lat":49.19,"lon":16.60,"tst":1714550000,"tid":"jp"},
             {"_type":"transition","wtst":1714540000,"lat":49.19,"lon":16.60,"tst":1714550010,"acc":10,"tid":"jp","event":"enter","desc":"Home","t":"c"},
             {"_type":"lwt","tst":1714550020},
             {"_type":"card","name":"Jane","tid":"jp"},
             {"_type":"waypoint","desc":"Home","lat":49.19,"lon":16.60,"rad":100,"tst":1714540000},
             {"_type":"location","lat":49.20,"lon":16.61,"tst":1714550030,"tid":"jp","t":"u"}]
            """
        let batch = decoder.decode(Array(body.utf8))
        #expect(batch.fixes.map(\.latitude) == [49.19, 49.20])
        #expect(batch.skipped.map(\.index) == [1, 2, 3, 4])
        #expect(batch.skipped.first?.reason == "_type transition is not a location")
        #expect(batch.malformed.isEmpty)
    }

    @Test func missingRequiredFieldsMakeAMessageMalformedAndMissingOptionalOnesDoNot() throws {
        let body = """
            [{"_type":"location","lon":16.6,"tst":1714550000,"tid":"jp"},
             {"_type":"location","lat":49.2,"lon":16.6,"tid":"jp"},
             {"_type":"location","lat":49.2,"lon":16.6,"tst":1714550000},
             {"lat":49.2,"lon":16.6,"tst":1714550000},
             {"_type":"location","lat":49.2,"lon":16.6,"tst":1714550000,"tid":"jp"}]
            """
        let batch = decoder.decode(Array(body.utf8))
        #expect(batch.malformed.map(\.reason) == [
            "lat: missing", "tst: missing", "no device: no topic, no default device, no tid", "_type: missing or not a string",
        ])
        let fix = try #require(batch.fixes.first)
        #expect(batch.fixes.count == 1)
        #expect(fix.accuracy == nil && fix.altitude == nil && fix.speed == nil && fix.course == nil && fix.battery == nil)
    }

    @Test func numbersWrittenAsStringsAreReadAndWordsAreNot() throws {
        let body = """
            [{"_type":"location","lat":"49.1951","lon":"16.6068","tst":"1714550000","acc":"12","batt":"87","tid":"jp"},
             {"_type":"location","lat":"north","lon":16.6,"tst":1714550000,"tid":"jp"},
             {"_type":"location","lat":49.2,"lon":true,"tst":1714550000,"tid":"jp"},
             {"_type":"location","lat":49.2,"lon":16.6,"tst":1714550001,"acc":"big","vel":[1],"tid":"jp"}]
            """
        let batch = decoder.decode(Array(body.utf8))
        #expect(batch.fixes.count == 2)
        let first = try #require(batch.fixes.first)
        #expect(first.latitude == 49.1951 && first.accuracy == 12 && first.battery == 87)
        #expect(batch.fixes.last?.accuracy == nil && batch.fixes.last?.speed == nil, "unusable optional fields are left out")
        #expect(batch.malformed.map(\.reason) == ["lat: expected a number, got the string \"north\"", "lon: expected a number, got boolean"])
        #expect(batch.malformed.map(\.index) == [1, 2])
    }

    @Test func theDeviceComesFromTheTopicThenTheDefaultThenTheTrackerID() {
        let topic = #"{"_type":"location","lat":1,"lon":2,"tst":3,"tid":"jp","topic":"owntracks/jane/phone"}"#
        let noTopic = #"{"_type":"location","lat":1,"lon":2,"tst":3,"tid":"jp"}"#
        let badTopic = #"{"_type":"location","lat":1,"lon":2,"tst":3,"tid":"jp","topic":"owntracks"}"#
        #expect(decoder.decode(Array(topic.utf8), defaultDeviceID: "u/d").fixes.first?.deviceID == "jane/phone")
        #expect(decoder.decode(Array(noTopic.utf8), defaultDeviceID: "u/d").fixes.first?.deviceID == "u/d")
        #expect(decoder.decode(Array(noTopic.utf8)).fixes.first?.deviceID == "jp")
        #expect(decoder.decode(Array(badTopic.utf8)).fixes.first?.deviceID == "jp")
    }

    @Test func bodiesThatAreNotMessagesAreMalformedNotErrors() {
        let notJSON = decoder.decode(Array("{\"_type\":".utf8))
        #expect(notJSON.malformed.count == 1 && notJSON.malformed[0].reason.contains("invalid JSON at byte"))
        #expect(decoder.decode(Array("42".utf8)).malformed.first?.reason == "expected an object or an array, got integer")
        let mixed = decoder.decode(Array(#"[1, "x", null]"#.utf8))
        #expect(mixed.malformed.map(\.index) == [0, 1, 2])
        #expect(decoder.decode([UInt8]()).malformed.count == 1)
    }
}
