import Testing
import TesseraSDK
@testable import TesseraSchema

@Suite("format")
struct FormatTests {
    static let date = #"{"format": "date"}"#
    static let dateTime = #"{"format": "date-time"}"#
    static let time = #"{"format": "time"}"#

    @Test(arguments: ["2024-02-29", "2000-02-29", "2023-12-31", "2024-01-01", "0001-01-01"])
    func validDates(_ text: String) throws {
        try expectValid(Self.date, "\"\(text)\"")
    }

    @Test(arguments: [
        "2023-02-29",  // not a leap year
        "1900-02-29",  // divisible by 100, not by 400
        "2024-13-01", "2024-00-10", "2024-04-31", "2024-01-00", "2024-01-32",
        "2024-1-01", "24-01-01", "2024/01/01", "2024-01-01T00:00:00Z", " 2024-01-01", "",
    ])
    func invalidDates(_ text: String) throws {
        let v = try single(Self.date, "\"\(text)\"")
        #expect(v.keyword == "format")
        #expect(v.expected == "a date (YYYY-MM-DD)")
        #expect(v.found == "string \"\(text)\"")
    }

    @Test(arguments: [
        "2024-01-31T09:30:00Z", "2024-01-31T09:30:00.123+01:00", "2024-01-31t09:30:00z",
        "2024-02-29T23:59:59-12:00", "1998-12-31T23:59:60Z", "1998-12-31T15:59:60-08:00",
    ])
    func validDateTimes(_ text: String) throws {
        try expectValid(Self.dateTime, "\"\(text)\"")
    }

    @Test(arguments: [
        "2024-01-31T09:30:00",  // no offset
        "2024-01-31 09:30:00Z", "2024-02-30T00:00:00Z", "2024-01-31T24:00:00Z", "2024-01-31T09:60:00Z",
        "2024-01-31T09:30:00.Z", "2024-01-31T09:30:00+1:00", "2024-01-31T09:30:00+01:00x",
        "1998-12-31T22:59:60Z",  // a leap second only at 23:59 UTC
        "2024-01-31",
    ])
    func invalidDateTimes(_ text: String) throws {
        let v = try single(Self.dateTime, "\"\(text)\"")
        #expect(v.keyword == "format")
        #expect(v.expected.hasPrefix("a date-time"))
    }

    @Test func time() throws {
        try expectValid(Self.time, #""09:30:00Z""#)
        try expectValid(Self.time, #""09:30:00.5+05:30""#)
        for bad in ["09:30:00", "9:30:00Z", "09:60:00Z", "25:00:00Z", "09:30Z"] {
            let v = try single(Self.time, "\"\(bad)\"")
            #expect(v.keyword == "format")
            #expect(v.expected.hasPrefix("a time"), "\(bad)")
        }
    }

    @Test func email() throws {
        let s = #"{"format": "email"}"#
        for good in ["a.b@example.com", "first+tag@mail.example.org", "x@sub-domain.example"] {
            try expectValid(s, "\"\(good)\"")
        }
        for bad in ["no-at.example.com", "a@b", "a b@example.com", "a..b@example.com", "@example.com",
                    "a@example..com", "a@-example.com", "a@"] {
            let v = try single(s, "\"\(bad)\"")
            #expect(v.keyword == "format")
            #expect(v.expected == "an email address", "\(bad)")
        }
    }

    @Test func uuid() throws {
        let s = #"{"format": "uuid"}"#
        try expectValid(s, #""123e4567-e89b-12d3-a456-426614174000""#)
        try expectValid(s, #""123E4567-E89B-12D3-A456-426614174000""#)
        for bad in ["123e4567e89b12d3a456426614174000", "123e4567-e89b-12d3-a456-42661417400",
                    "g23e4567-e89b-12d3-a456-426614174000", "123e4567-e89b-12d3-a456_426614174000"] {
            let v = try single(s, "\"\(bad)\"")
            #expect(v.expected == "a UUID")
        }
    }

    @Test func uri() throws {
        let s = #"{"format": "uri"}"#
        for good in ["https://example.com/a?b=c#d", "urn:isbn:0451450523", "mailto:a@b.c", "file:///tmp/x%20y"] {
            try expectValid(s, "\"\(good)\"")
        }
        for bad in ["/relative/path", "example.com", "http://exa mple.com", "1http://x", "http://x/%zz", ":x"] {
            let v = try single(s, "\"\(bad)\"")
            #expect(v.expected == "a URI with a scheme", "\(bad)")
        }
    }

    @Test func unknownFormatsAreAnnotationsOnly() throws {
        try expectValid(#"{"format": "hostname"}"#, #""not a hostname!""#)
        try expectValid(#"{"format": "x-tessera-money"}"#, #""anything""#)
    }

    @Test func formatIgnoresNonStrings() throws {
        try expectValid(Self.date, "20240101")
        try expectValid(Self.date, "null")
    }
}
