import Foundation
import Testing
import TesseraSDK

// `JSONValue.decode(as:)` and `JSONValue(encoding:)` work on the tree directly. These tests pin their
// behaviour: round trips, the errors (and their coding paths, which the host shows to callers), and
// agreement with Foundation's JSONDecoder/JSONEncoder, which the previous implementation used.

// MARK: - Fixtures

enum Status: String, Codable, Equatable { case open, closed }
enum Priority: Int, Codable, Equatable { case low = 1, high = 2 }
enum Shape: Codable, Equatable {
    case circle(radius: Double)
    case square(side: Int)
    case none
}

struct Item: Codable, Equatable {
    var name: String
    var amount: Int
    var price: Double?
}

struct Order: Codable, Equatable {
    var id: UUID
    var items: [Item]
    var status: Status
    var priority: Priority
    var shape: Shape
    var counts: [String: Int]
    var labels: [Int: String]
    var optionals: [Int?]
    var matrix: [[Int]]
    var note: String?
    var created: Date
    var blob: Data
    var link: URL
    var price: Decimal
    var small: Int8
    var big: UInt64
    var ratio: Float
    var flag: Bool
    var extra: JSONValue
}

func sampleOrder(created: Date = Date(timeIntervalSince1970: 1_772_445_600)) -> Order {
    Order(
        id: UUID(uuidString: "3F2B8C1E-9A4D-4E2F-8B7A-1C2D3E4F5A6B")!,
        items: [Item(name: "bread", amount: 250, price: 2.5), Item(name: "milk", amount: 120, price: nil)],
        status: .open, priority: .high, shape: .circle(radius: 1.5),
        counts: ["a": 1, "b": -2], labels: [1: "one", 20: "twenty"],
        optionals: [1, nil, 3], matrix: [[1, 2], [], [3]], note: nil,
        created: created, blob: Data([0, 1, 2, 250, 255]), link: URL(string: "https://example.com/a?b=c")!,
        price: Decimal(string: "12.34")!, small: -8, big: UInt64(Int64.max), ratio: 0.1, flag: true,
        extra: ["n": 3.0, "i": 3, "s": "x", "list": [nil, true]])
}

/// `$.items[1].amount`: how the host names a member. Positions are keys with an `intValue`, except
/// that dictionary keys are written as names.
func jsonPath(_ path: [any CodingKey]) -> String {
    path.reduce("$") { text, key in
        if let index = key.intValue, key.stringValue.hasPrefix("Index ") { return text + "[\(index)]" }
        return text + "." + key.stringValue
    }
}

/// What an error is, reduced to what tests compare: its case and the path of the value at fault
/// (for a missing key, the path includes the key).
func summary(_ error: any Error) -> String {
    switch error {
    case DecodingError.typeMismatch(_, let c): return "typeMismatch \(jsonPath(c.codingPath))"
    case DecodingError.valueNotFound(_, let c): return "valueNotFound \(jsonPath(c.codingPath))"
    case DecodingError.keyNotFound(let key, let c): return "keyNotFound \(jsonPath(c.codingPath + [key]))"
    case DecodingError.dataCorrupted(let c): return "dataCorrupted \(jsonPath(c.codingPath))"
    case EncodingError.invalidValue(_, let c): return "invalidValue \(jsonPath(c.codingPath))"
    default: return "other \(error)"
    }
}

func decodingFailure<T: Decodable>(_ type: T.Type, _ text: String) -> String? {
    do {
        _ = try JSONValue(parsing: text).decode(as: T.self)
        return nil
    } catch {
        return summary(error)
    }
}

func foundationDecoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
}

func foundationEncoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.dateEncodingStrategy = .iso8601
    return encoder
}

// MARK: - Round trips

@Suite struct RoundTripTests {
    @Test func nestedValuesRoundTrip() throws {
        let order = sampleOrder()
        let value = try JSONValue(encoding: order)
        #expect(try value.decode(as: Order.self) == order)
        // And through text, as a caller would send it.
        #expect(try JSONValue(parsing: value.serialized()).decode(as: Order.self) == order)
    }

    @Test func representationOfSpecialTypes() throws {
        let value = try JSONValue(encoding: sampleOrder())
        #expect(value["created"] == "2026-03-02T10:00:00Z")
        #expect(value["blob"] == "AAEC+v8=")
        #expect(value["link"] == "https://example.com/a?b=c")
        #expect(value["id"] == "3F2B8C1E-9A4D-4E2F-8B7A-1C2D3E4F5A6B")
        #expect(value["price"] == .number(12.34))
        #expect(value["status"] == "open")
        #expect(value["priority"] == .integer(2))
        #expect(value["labels"] == ["1": "one", "20": "twenty"])
        #expect(value["optionals"] == [1, nil, 3])
        #expect(value["ratio"] == .number(0.1))
        #expect(value["big"] == .integer(Int64.max))
        #expect(value["note"] == nil, "a nil optional member is left out")
        // JSONValue members are taken as they are: 3.0 stays a number, not an integer.
        #expect(value["extra"] == ["n": .number(3.0), "i": .integer(3), "s": "x", "list": [nil, true]])
    }

    @Test func datesWithAFractionKeepMilliseconds() throws {
        let date = Date(timeIntervalSince1970: 1_772_445_600.123)
        let value = try JSONValue(encoding: [date])
        #expect(value == ["2026-03-02T10:00:00.123Z"])
        let back = try value.decode(as: [Date].self)
        #expect(abs(back[0].timeIntervalSince1970 - date.timeIntervalSince1970) < 0.0005)
    }

    @Test func dateFractionsRoundToTheNearestMillisecond() throws {
        let seconds: [TimeInterval] = [1_772_445_600.05, 1_772_445_600.0004, 1_772_445_600.9996, -0.5, 0.007]
        let value = try JSONValue(encoding: seconds.map { Date(timeIntervalSince1970: $0) })
        #expect(value == [
            "2026-03-02T10:00:00.050Z", "2026-03-02T10:00:00Z", "2026-03-02T10:00:01Z",
            "1969-12-31T23:59:59.500Z", "1970-01-01T00:00:00.007Z",
        ])
    }

    @Test func datesDecodeWithOrWithoutFractionAndWithOffsets() throws {
        let texts: JSONValue = ["2026-03-02T10:00:00Z", "2026-03-02T10:00:00.5Z", "2026-03-02T12:00:00+02:00"]
        let dates = try texts.decode(as: [Date].self)
        #expect(dates.map(\.timeIntervalSince1970) == [1_772_445_600, 1_772_445_600.5, 1_772_445_600])
    }

    @Test func optionalsMissingOrNullAreNil() throws {
        struct Optionals: Codable, Equatable {
            var a: Int?
            var b: String?
            var c: Item?
            var d: [Int?]?
        }
        #expect(try JSONValue.object([:]).decode(as: Optionals.self) == Optionals())
        let nulls: JSONValue = ["a": nil, "b": nil, "c": nil, "d": nil]
        #expect(try nulls.decode(as: Optionals.self) == Optionals())
        let full = Optionals(a: 1, b: "x", c: Item(name: "n", amount: 1), d: [nil, 2])
        #expect(try JSONValue(encoding: full).decode(as: Optionals.self) == full)
        #expect(try JSONValue(encoding: Optionals()) == .object([:]))
    }

    @Test func enumsWithAssociatedValues() throws {
        for shape in [Shape.circle(radius: 2), .square(side: 3), .none] {
            #expect(try JSONValue(encoding: shape).decode(as: Shape.self) == shape)
        }
        #expect(try JSONValue(encoding: Shape.square(side: 3)) == ["square": ["side": 3]])
    }

    @Test func topLevelScalars() throws {
        #expect(try JSONValue(encoding: 42) == .integer(42))
        #expect(try JSONValue(encoding: "x") == "x")
        #expect(try JSONValue(encoding: Optional<Int>.none) == .null)
        #expect(try JSONValue.integer(42).decode(as: Int.self) == 42)
        #expect(try JSONValue.null.decode(as: Int?.self) == nil)
        #expect(try JSONValue.number(2.0).decode(as: Int.self) == 2)
        #expect(try JSONValue.integer(2).decode(as: Double.self) == 2.0)
        #expect(try JSONValue.number(1e3).decode(as: UInt16.self) == 1000)
        #expect(try JSONValue.number(0.1).decode(as: Decimal.self) == Decimal(string: "0.1"))
    }

    @Test func failedElementCanBeRetriedAsAnotherType() throws {
        /// Reads numbers where it can and strings otherwise: a failed `try?` must not consume the element.
        struct Mixed: Decodable {
            var numbers: [Int] = []
            var words: [String] = []
            init(from decoder: any Decoder) throws {
                var c = try decoder.unkeyedContainer()
                while !c.isAtEnd {
                    if try c.decodeNil() { continue }
                    if let n = try? c.decode(Int.self) { numbers.append(n) } else { words.append(try c.decode(String.self)) }
                }
                #expect(c.currentIndex == 4)
                #expect(throws: DecodingError.self) { try c.decodeNil() }
            }
        }
        let mixed = try ([1, "a", nil, 2] as JSONValue).decode(as: Mixed.self)
        #expect(mixed.numbers == [1, 2] && mixed.words == ["a"])
    }

    @Test func subclassesUseSuperEncoderAndDecoder() throws {
        let value = try JSONValue(encoding: Derived(base: 1, derived: "d"))
        #expect(value == ["derived": "d", "super": ["base": 1]])
        let back = try value.decode(as: Derived.self)
        #expect(back.base == 1 && back.derived == "d")
    }

    @Test func customContainersNestedAndUnkeyed() throws {
        let pair = Pair(left: 1, right: ["x", "y"])
        let value = try JSONValue(encoding: pair)
        #expect(value == [1, ["side": "right", "values": ["x", "y"]]])
        #expect(try value.decode(as: Pair.self) == pair)
    }
}

class Base: Codable {
    var base: Int
    init(base: Int) { self.base = base }
}

final class Derived: Base {
    var derived: String
    enum CodingKeys: String, CodingKey { case derived }

    init(base: Int, derived: String) {
        self.derived = derived
        super.init(base: base)
    }

    required init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        derived = try c.decode(String.self, forKey: .derived)
        try super.init(from: c.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(derived, forKey: .derived)
        try super.encode(to: c.superEncoder())
    }
}

/// Written by hand to reach the unkeyed container's nested containers.
struct Pair: Codable, Equatable {
    var left: Int
    var right: [String]
    enum Keys: String, CodingKey { case side, values }

    init(left: Int, right: [String]) {
        self.left = left
        self.right = right
    }

    init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        left = try c.decode(Int.self)
        let nested = try c.nestedContainer(keyedBy: Keys.self)
        var values = try nested.nestedUnkeyedContainer(forKey: .values)
        right = []
        while !values.isAtEnd { right.append(try values.decode(String.self)) }
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(left)
        var nested = c.nestedContainer(keyedBy: Keys.self)
        try nested.encode("right", forKey: .side)
        var values = nested.nestedUnkeyedContainer(forKey: .values)
        for v in right { try values.encode(v) }
    }
}

// MARK: - Errors

/// Lists of each scalar the decoder converts without `Array.init(from:)`.
struct Lists: Codable, Equatable {
    var names: [String]
    var counts: [Int]
    var shares: [Double]
    var flags: [Bool]
    var maybe: [String]?
}

/// Writes `a` twice, and `b` first as a nested object, then as a Boolean.
struct WrittenTwice: Encodable {
    enum Keys: String, CodingKey { case a, b }
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(1, forKey: .a)
        var nested = container.nestedContainer(keyedBy: Keys.self, forKey: .b)
        try nested.encode("inner", forKey: .a)
        try container.encode("second", forKey: .a)
        try container.encode(true, forKey: .b)
    }
}

struct Cart: Codable, Equatable {
    var items: [Item]
}

@Suite struct ErrorTests {
    @Test func typeMismatchNamesTheMember() {
        let text = #"{"items":[{"name":"a","amount":1},{"name":"b","amount":"12"}]}"#
        #expect(decodingFailure(Cart.self, text) == "typeMismatch $.items[1].amount")
    }

    @Test func missingKeyNamesTheMember() {
        let text = #"{"items":[{"name":"a","amount":1},{"amount":2}]}"#
        #expect(decodingFailure(Cart.self, text) == "keyNotFound $.items[1].name")
    }

    @Test func nullForARequiredMember() {
        #expect(decodingFailure(Cart.self, #"{"items":[{"name":null,"amount":1}]}"#) == "valueNotFound $.items[0].name")
        #expect(decodingFailure(Cart.self, #"{"items":null}"#) == "valueNotFound $.items")
        #expect(decodingFailure([Int].self, "[1, null]") == "valueNotFound $[1]")
    }

    @Test func integerOverflowAndFractions() {
        struct Small: Decodable { var v: Int8 }
        struct Unsigned: Decodable { var v: UInt }
        struct Whole: Decodable { var v: Int64 }
        #expect(decodingFailure(Small.self, #"{"v":300}"#) == "dataCorrupted $.v")
        #expect(decodingFailure(Small.self, #"{"v":-129}"#) == "dataCorrupted $.v")
        #expect(decodingFailure(Unsigned.self, #"{"v":-1}"#) == "dataCorrupted $.v")
        #expect(decodingFailure(Whole.self, #"{"v":1.5}"#) == "dataCorrupted $.v")
        #expect(decodingFailure(Whole.self, #"{"v":1e19}"#) == "dataCorrupted $.v")
        #expect(decodingFailure([Int8].self, "[1, 128]") == "dataCorrupted $[1]")
        #expect(decodingFailure(Float.self, "1e300") == "dataCorrupted $")
    }

    @Test func boolOnlyFromBool() {
        #expect(decodingFailure(Bool.self, "1") == "typeMismatch $")
        #expect(decodingFailure(Bool.self, #""true""#) == "typeMismatch $")
        #expect(decodingFailure(String.self, "1") == "typeMismatch $")
        #expect(decodingFailure(Int.self, "true") == "typeMismatch $")
    }

    @Test func badSpecialValues() {
        struct Special: Decodable {
            var date: Date?
            var blob: Data?
            var link: URL?
        }
        #expect(decodingFailure(Special.self, #"{"date":"2026-03-02"}"#) == "dataCorrupted $.date")
        #expect(decodingFailure(Special.self, #"{"date":1772445600}"#) == "typeMismatch $.date")
        #expect(decodingFailure(Special.self, #"{"blob":"not base64!"}"#) == "dataCorrupted $.blob")
        #expect(decodingFailure(Special.self, #"{"link":""}"#) == "dataCorrupted $.link")
        #expect(decodingFailure(Status.self, #""pending""#) == "dataCorrupted $")
        #expect(decodingFailure(Priority.self, "3") == "dataCorrupted $")
    }

    @Test func containerOfTheWrongKind() {
        #expect(decodingFailure(Cart.self, #"{"items":{}}"#) == "typeMismatch $.items")
        #expect(decodingFailure(Cart.self, "[]") == "typeMismatch $")
        #expect(decodingFailure(Pair.self, "[1]") == "valueNotFound $[1]")
    }

    @Test func nonFiniteNumbersDoNotEncode() throws {
        struct Values: Encodable { var values: [Double] }
        #expect(throws: EncodingError.self) { try JSONValue(encoding: Values(values: [1, .nan])) }
        do {
            _ = try JSONValue(encoding: Values(values: [1, .infinity]))
            Issue.record("infinity was encoded")
        } catch {
            #expect(summary(error) == "invalidValue $.values[1]")
        }
        #expect(throws: EncodingError.self) { try JSONValue(encoding: Float.nan) }
    }

    @Test func encoderMisuseThrowsInsteadOfCrashing() throws {
        struct Confused: Encodable {
            func encode(to encoder: any Encoder) throws {
                var single = encoder.singleValueContainer()
                try single.encode(1)
                var keyed = encoder.container(keyedBy: Pair.Keys.self)
                try keyed.encode("x", forKey: .side)
            }
        }
        struct Twice: Encodable {
            func encode(to encoder: any Encoder) throws {
                var single = encoder.singleValueContainer()
                try single.encode(1)
                try single.encode(2)
            }
        }
        struct Nothing: Encodable {
            func encode(to encoder: any Encoder) throws {}
        }
        #expect(throws: EncodingError.self) { try JSONValue(encoding: Confused()) }
        #expect(throws: EncodingError.self) { try JSONValue(encoding: ["a": Twice()]) }
        #expect(throws: EncodingError.self) { try JSONValue(encoding: Nothing()) }
        #expect(try JSONValue(encoding: [Nothing()]) == [[:]])
    }
}

// MARK: - Agreement with Foundation

@Suite struct FoundationAgreementTests {
    /// Decodes `text` with JSONDecoder and through `JSONValue`, and expects the same result.
    func expectSameDecoding<T: Decodable & Equatable>(_ type: T.Type, _ text: String) throws {
        let foundation = try foundationDecoder().decode(T.self, from: Data(text.utf8))
        let ours = try JSONValue(parsing: text).decode(as: T.self)
        #expect(ours == foundation)
    }

    /// Encodes `value` with JSONEncoder (then parses the text) and directly, and expects the same tree.
    ///
    /// One difference is intended: a whole-valued `Double` now stays `.number(2.0)`, where JSONEncoder
    /// wrote `2` and the parser read that back as `.integer(2)`; `wholeNumbersAsIntegers` undoes it.
    func expectSameEncoding<T: Encodable>(_ value: T) throws {
        let foundation = try JSONValue(parsing: foundationEncoder().encode(value))
        #expect(try wholeNumbersAsIntegers(JSONValue(encoding: value)) == foundation)
    }

    func wholeNumbersAsIntegers(_ value: JSONValue) -> JSONValue {
        switch value {
        case .number(let d) where d.rounded() == d && abs(d) < 1e15: return .integer(Int64(d))
        case .array(let elements): return .array(elements.map(wholeNumbersAsIntegers))
        case .object(let members): return .object(members.mapValues(wholeNumbersAsIntegers))
        default: return value
        }
    }

    @Test func floatingPointStaysANumberWhenWhole() throws {
        #expect(try JSONValue(encoding: 2.0) == .number(2.0))
        #expect(try JSONValue(encoding: Item(name: "a", amount: 2, price: 3)) == ["name": "a", "amount": 2, "price": .number(3)])
    }

    @Test func sameDecodingAsJSONDecoder() throws {
        let text = try String(decoding: foundationEncoder().encode(sampleOrder()), as: UTF8.self)
        try expectSameDecoding(Order.self, text)
        try expectSameDecoding(Cart.self, #"{"items":[{"name":"a","amount":1,"price":2.25},{"name":"b","amount":-7}]}"#)
        try expectSameDecoding([String: [Int?]].self, #"{"x":[1,null],"y":[]}"#)
        try expectSameDecoding([Int: Bool].self, #"{"1":true,"-2":false}"#)
        try expectSameDecoding([Date].self, #"["2026-03-02T10:00:00Z"]"#)
        try expectSameDecoding([Double].self, "[1, 1.5, -0.0, 1e-7, 12345678901234]")
        try expectSameDecoding([Decimal].self, "[1, 0.1, 12.34]")
        try expectSameDecoding([UInt8].self, "[0, 255]")
        try expectSameDecoding(Shape.self, #"{"circle":{"radius":2}}"#)
    }

    @Test func sameEncodingAsJSONEncoder() throws {
        try expectSameEncoding(sampleOrder())
        try expectSameEncoding(Cart(items: [Item(name: "a", amount: 1, price: 0.3)]))
        try expectSameEncoding([1: "a", -5: "b"])
        try expectSameEncoding(["k": [1.5, -0.0, 1e-7, 1e300]])
        try expectSameEncoding([Float(0.1), Float(3.4e38)])
        try expectSameEncoding([UInt64.max, 0])
        try expectSameEncoding([Decimal(string: "0.1")!, Decimal(string: "100")!, Decimal(string: "-1.25e3")!])
        try expectSameEncoding(Derived(base: 1, derived: "d"))
        try expectSameEncoding(Pair(left: 1, right: []))
    }

    /// Lists of strings, integers, numbers and Booleans are converted without `Array.init(from:)`
    /// (`JSONScalar.list`); they decode, and are refused, as JSONDecoder does: the same values, and
    /// the same error at the same element.
    @Test func listsOfScalarsDecodeAndFailAsJSONDecoderDoes() throws {
        try expectSameDecoding(Lists.self, #"{"names":["a","\u00e9",""],"counts":[1,-2,9007199254740993],"shares":[1,0.5,-0.0,1e-7],"flags":[true,false],"maybe":["x"]}"#)
        try expectSameDecoding(Lists.self, #"{"names":[],"counts":[],"shares":[],"flags":[],"maybe":null}"#)
        try expectSameDecoding([String].self, #"["a","b"]"#)
        try expectSameDecoding([Bool].self, "[true]")
        let refused = [
            #"{"names":["a",2],"counts":[],"shares":[],"flags":[]}"#,
            #"{"names":["a",null],"counts":[],"shares":[],"flags":[]}"#,
            #"{"names":["a",["b"]],"counts":[],"shares":[],"flags":[]}"#,
            #"{"names":["a",{}],"counts":[],"shares":[],"flags":[]}"#,
            #"{"names":"a","counts":[],"shares":[],"flags":[]}"#,
            #"{"names":{},"counts":[],"shares":[],"flags":[]}"#,
            #"{"names":[],"counts":[1,"2"],"shares":[],"flags":[]}"#,
            #"{"names":[],"counts":[],"shares":[1,true],"flags":[]}"#,
            #"{"names":[],"counts":[],"shares":[],"flags":[true,1]}"#,
            #"{"names":[],"counts":[],"shares":[],"flags":[],"maybe":[null]}"#,
        ]
        for text in refused {
            var foundation: String?
            do { _ = try foundationDecoder().decode(Lists.self, from: Data(text.utf8)) } catch { foundation = summary(error) }
            #expect(foundation != nil, "\(text)")
            #expect(decodingFailure(Lists.self, text) == foundation, "\(text)")
        }
        // The intended difference (below): JSONDecoder puts a fraction for an integer at `$`; here
        // it is the element's.
        #expect(decodingFailure(Lists.self, #"{"names":[],"counts":[1,1.5],"shares":[],"flags":[]}"#) == "dataCorrupted $.counts[1]")
    }

    /// A member written twice keeps its last value, also where the first was a nested container, as
    /// with JSONEncoder (the encoder keeps an object's members in order and resolves them at the end).
    @Test func aMemberWrittenTwiceKeepsItsLastValue() throws {
        try expectSameEncoding(WrittenTwice())
        #expect(try JSONValue(encoding: WrittenTwice()) == ["a": "second", "b": true])
    }

    /// Out-of-range numbers are the one intended difference: JSONDecoder reports them at `$` as
    /// "not valid JSON", where the tree decoder names the member (see `integerOverflowAndFractions`).
    @Test func sameErrorsAsJSONDecoder() throws {
        let cases: [String] = [
            #"{"items":[{"name":"a","amount":1},{"name":"b","amount":"12"}]}"#,
            #"{"items":[{"name":"a","amount":1},{"amount":2}]}"#,
            #"{"items":[{"name":null,"amount":1}]}"#,
            #"{"items":[{"name":"a","amount":true}]}"#,
            #"{"items":5}"#,
            #"{"items":[{"name":"a","amount":1,"price":"x"}]}"#,
        ]
        for text in cases {
            var foundation: String?
            do { _ = try foundationDecoder().decode(Cart.self, from: Data(text.utf8)) } catch { foundation = summary(error) }
            #expect(decodingFailure(Cart.self, text) == foundation, "\(text)")
        }
    }
}
