import Foundation

/// A small XML reader, enough for a bank's statement (CAMT.053): elements, attributes, text,
/// CDATA, comments, the XML declaration and processing instructions, the five named entities and
/// character references. It keeps no namespaces: an element is known by its local name
/// (`Ntry`, whatever prefix the bank uses). A DTD (`<!DOCTYPE`) is refused, so no entity a file
/// declares can expand (the "billion laughs"); the module depends on nothing but the toolchain,
/// and Foundation's XMLParser on Linux would bring libxml2.
struct XMLElement: Sendable, Equatable {
    /// The local name, without its namespace prefix.
    var name: String
    var attributes: [String: String] = [:]
    var children: [XMLElement] = []
    /// The element's own text (its children's not included), whitespace kept.
    var text = ""

    /// The first child called `name`.
    func child(_ name: String) -> XMLElement? { children.first { $0.name == name } }

    /// Every child called `name`.
    func all(_ name: String) -> [XMLElement] { children.filter { $0.name == name } }

    /// The element at `path` below this one (`["BookgDt", "Dt"]`), following first children.
    func at(_ path: String...) -> XMLElement? {
        path.reduce(Optional(self)) { element, name in element?.child(name) }
    }

    /// The trimmed text at `path`, `nil` when absent or empty.
    func value(_ path: String...) -> String? {
        let found = path.reduce(Optional(self)) { element, name in element?.child(name) }
        let text = found?.text.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return text.isEmpty ? nil : text
    }

    /// Every element called `name` at any depth below this one, in document order.
    func descendants(_ name: String) -> [XMLElement] {
        children.flatMap { ($0.name == name ? [$0] : []) + $0.descendants(name) }
    }
}

/// What is wrong with a document, and on which line.
struct XMLSyntaxError: Error, Equatable {
    var line: Int
    var reason: String
}

extension XMLElement {
    /// The root element of `text`; throws ``XMLSyntaxError`` for anything that is not well-formed.
    static func parse(_ text: String) throws -> XMLElement {
        var reader = XMLReader(Array(text.utf8))
        return try reader.document()
    }
}

/// Reads bytes into elements; positions count lines for the errors.
private struct XMLReader {
    let bytes: [UInt8]
    var at = 0
    var line = 1

    init(_ bytes: [UInt8]) {
        // A byte-order mark is not content.
        self.bytes = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
    }

    func fail(_ reason: String) -> XMLSyntaxError { XMLSyntaxError(line: line, reason: reason) }

    var atEnd: Bool { at >= bytes.count }

    func next(is literal: String) -> Bool { bytes[at...].starts(with: literal.utf8) }

    mutating func advance(_ count: Int = 1) {
        for _ in 0..<count where at < bytes.count {
            if bytes[at] == UInt8(ascii: "\n") { line += 1 }
            at += 1
        }
    }

    mutating func skip(past terminator: String, what: String) throws {
        while !atEnd, !next(is: terminator) { advance() }
        guard !atEnd else { throw fail("\(what) is not closed") }
        advance(terminator.utf8.count)
    }

    mutating func skipSpace() {
        while !atEnd, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[at]) { advance() }
    }

    /// Comments, processing instructions and space between the parts of a document.
    mutating func skipMisc() throws {
        while true {
            skipSpace()
            if next(is: "<?") { try skip(past: "?>", what: "a processing instruction") }
            else if next(is: "<!--") { try skip(past: "-->", what: "a comment") }
            else if next(is: "<!DOCTYPE") { throw fail("a document type declaration (<!DOCTYPE>) is not accepted in a statement") }
            else { return }
        }
    }

    mutating func document() throws -> XMLElement {
        try skipMisc()
        guard !atEnd, bytes[at] == UInt8(ascii: "<") else { throw fail("the file does not start with an XML element") }
        let root = try element()
        try skipMisc()
        guard atEnd else { throw fail("there is more after the root element") }
        return root
    }

    mutating func name() throws -> String {
        let start = at
        while !atEnd, !" \t\r\n/>=".utf8.contains(bytes[at]) { advance() }
        guard at > start else { throw fail("a name is missing") }
        return String(decoding: bytes[start..<at], as: UTF8.self)
    }

    static func localName(_ qualified: String) -> String {
        qualified.split(separator: ":").last.map(String.init) ?? qualified
    }

    mutating func element() throws -> XMLElement {
        advance()  // <
        let qualified = try name()
        var element = XMLElement(name: Self.localName(qualified))
        while true {
            skipSpace()
            guard !atEnd else { throw fail("the tag <\(qualified)> is not closed") }
            if next(is: "/>") { advance(2); return element }
            if bytes[at] == UInt8(ascii: ">") { advance(); break }
            let attribute = try name()
            skipSpace()
            guard !atEnd, bytes[at] == UInt8(ascii: "=") else { throw fail("the attribute \(attribute) has no value") }
            advance()
            skipSpace()
            guard !atEnd, bytes[at] == UInt8(ascii: "\"") || bytes[at] == UInt8(ascii: "'") else { throw fail("the attribute \(attribute) is not quoted") }
            let quote = bytes[at]
            advance()
            let start = at
            while !atEnd, bytes[at] != quote { advance() }
            guard !atEnd else { throw fail("the attribute \(attribute) is not closed") }
            element.attributes[Self.localName(attribute)] = try Self.decoded(bytes[start..<at], line: line)
            advance()
        }
        try content(of: &element, qualified: qualified)
        return element
    }

    /// Text, CDATA, comments and children up to `</qualified>`.
    mutating func content(of element: inout XMLElement, qualified: String) throws {
        while true {
            guard !atEnd else { throw fail("<\(qualified)> is not closed") }
            if next(is: "</") {
                advance(2)
                let closing = try name()
                skipSpace()
                guard closing == qualified, !atEnd, bytes[at] == UInt8(ascii: ">") else {
                    throw fail("</\(closing)> closes <\(qualified)>")
                }
                advance()
                return
            } else if next(is: "<![CDATA[") {
                advance(9)
                let start = at
                try skip(past: "]]>", what: "a CDATA section")
                element.text += String(decoding: bytes[start..<(at - 3)], as: UTF8.self)
            } else if next(is: "<!--") {
                try skip(past: "-->", what: "a comment")
            } else if next(is: "<?") {
                try skip(past: "?>", what: "a processing instruction")
            } else if bytes[at] == UInt8(ascii: "<") {
                element.children.append(try self.element())
            } else {
                let start = at
                while !atEnd, bytes[at] != UInt8(ascii: "<") { advance() }
                element.text += try Self.decoded(bytes[start..<at], line: line)
            }
        }
    }

    static let entities = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'"]

    /// Text with its entity and character references replaced.
    static func decoded(_ slice: ArraySlice<UInt8>, line: Int) throws -> String {
        let text = String(decoding: slice, as: UTF8.self)
        guard text.contains("&") else { return text }
        var out = "", rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";") else {
                throw XMLSyntaxError(line: line, reason: "an & that starts no reference")
            }
            let reference = String(rest[rest.index(after: amp)..<semicolon])
            if let named = entities[reference] {
                out += named
            } else if reference.hasPrefix("#"), let scalar = characterReference(reference.dropFirst()) {
                out.unicodeScalars.append(scalar)
            } else {
                throw XMLSyntaxError(line: line, reason: "an unknown reference &\(reference);")
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return out + rest
    }

    static func characterReference(_ digits: Substring) -> Unicode.Scalar? {
        let value = digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
        return value.flatMap(Unicode.Scalar.init)
    }
}
