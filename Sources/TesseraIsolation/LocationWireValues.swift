import Foundation
import TesseraSDK

/// A location fix on the wire (the feed's latest fix, and each fix for the plugin's handler).
extension LocationFix {
    public var wire: JSONValue {
        var o: [String: JSONValue] = ["latitude": .number(latitude), "longitude": .number(longitude),
                                      "timestamp": timestamp.wire, "deviceID": .string(deviceID)]
        if let accuracy { o["accuracy"] = .number(accuracy) }
        if let altitude { o["altitude"] = .number(altitude) }
        if let speed { o["speed"] = .number(speed) }
        if let course { o["course"] = .number(course) }
        if let battery { o["battery"] = .integer(Int64(battery)) }
        return .object(o)
    }
    public init(wire: JSONValue) throws {
        guard let latitude = wire["latitude"]?.doubleValue, let longitude = wire["longitude"]?.doubleValue else {
            throw WireFormatError("a location fix", wire)
        }
        self.init(latitude: latitude, longitude: longitude, accuracy: wire["accuracy"]?.doubleValue,
                  altitude: wire["altitude"]?.doubleValue, speed: wire["speed"]?.doubleValue, course: wire["course"]?.doubleValue,
                  battery: wire["battery"]?.integerValue.map { Int($0) }, timestamp: try Date(wire: wire["timestamp"]),
                  deviceID: try wire.wireString("deviceID"))
    }
}
