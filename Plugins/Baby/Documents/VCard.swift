/// A vCard 4.0 (RFC 6350) for one contact: what the diary shares for a carer or a doctor.
///
/// `text` is the card as a `text/vcard` body: CRLF line ends, values escaped (§3.4), lines folded at
/// 75 octets without splitting a UTF-8 sequence (§3.2). For a doctor, put the practice in
/// `organization`, the specialisation in `role`, and office hours in `note`.
///
/// ```swift
/// let card = try VCard(formattedName: "MUDr. Jana Nováková", name: .init(family: "Nováková", given: "Jana", prefixes: "MUDr."),
///                      phones: [.init("+420 601 234 567", types: [.work, .voice])], role: "Pediatr")
/// card.text   // "BEGIN:VCARD\r\nVERSION:4.0\r\n…END:VCARD\r\n"
/// ```
public struct VCard: Sendable, Equatable {
    /// The structured name (N): each part may hold several values, separated by commas in the card.
    public struct Name: Sendable, Equatable {
        /// Family names.
        public var family: [String]
        /// Given names.
        public var given: [String]
        /// Additional (middle) names.
        public var additional: [String]
        /// Honorific prefixes, e.g. "MUDr.".
        public var prefixes: [String]
        /// Honorific suffixes, e.g. "Ph.D.".
        public var suffixes: [String]

        /// A name from its parts; empty parts are left empty in the card.
        public init(family: String = "", given: String = "", additional: String = "", prefixes: String = "", suffixes: String = "") {
            self.family = [family].filter { !$0.isEmpty }
            self.given = [given].filter { !$0.isEmpty }
            self.additional = [additional].filter { !$0.isEmpty }
            self.prefixes = [prefixes].filter { !$0.isEmpty }
            self.suffixes = [suffixes].filter { !$0.isEmpty }
        }
    }

    /// A TYPE parameter value for TEL, EMAIL and ADR.
    public enum Kind: String, Sendable, Equatable {
        /// At home.
        case home
        /// At work.
        case work
        /// A voice line (TEL only).
        case voice
        /// A mobile phone (TEL only).
        case cell
        /// A text-message number (TEL only).
        case text
        /// A fax (TEL only).
        case fax
    }

    /// A telephone number (TEL).
    public struct Phone: Sendable, Equatable {
        /// The number as entered, e.g. "+420 601 234 567".
        public var number: String
        /// Its TYPE values.
        public var types: [Kind]

        /// A number with its kinds.
        public init(_ number: String, types: [Kind] = []) {
            self.number = number
            self.types = types
        }
    }

    /// An e-mail address (EMAIL).
    public struct Email: Sendable, Equatable {
        /// The address.
        public var address: String
        /// Its TYPE values.
        public var types: [Kind]

        /// An address with its kinds.
        public init(_ address: String, types: [Kind] = []) {
            self.address = address
            self.types = types
        }
    }

    /// A postal address (ADR), in the card's seven components (PO box and extended address are written empty, as §6.3.1 advises).
    public struct Address: Sendable, Equatable {
        /// Street and number.
        public var street: String
        /// City or town.
        public var locality: String
        /// Region or state.
        public var region: String
        /// Postal code.
        public var postalCode: String
        /// Country name.
        public var country: String
        /// Its TYPE values.
        public var types: [Kind]

        /// An address from its parts.
        public init(street: String = "", locality: String = "", region: String = "", postalCode: String = "", country: String = "", types: [Kind] = []) {
            self.street = street
            self.locality = locality
            self.region = region
            self.postalCode = postalCode
            self.country = country
            self.types = types
        }
    }

    /// FN: the name as shown; required and not blank.
    public var formattedName: String
    /// N.
    public var name: Name?
    /// TEL, in order of preference.
    public var phones: [Phone]
    /// EMAIL, in order of preference.
    public var emails: [Email]
    /// ADR.
    public var addresses: [Address]
    /// ORG: the organisation, e.g. a doctor's practice.
    public var organization: String?
    /// ROLE: the function, e.g. a doctor's specialisation.
    public var role: String?
    /// NOTE, e.g. a doctor's office hours; may span lines.
    public var note: String?
    /// UID: a stable identifier, e.g. "urn:uuid:…".
    public var uid: String?

    /// A card; `formattedName` must not be blank.
    /// - Throws: `VCardError.blankFormattedName`.
    public init(formattedName: String, name: Name? = nil, phones: [Phone] = [], emails: [Email] = [], addresses: [Address] = [],
                organization: String? = nil, role: String? = nil, note: String? = nil, uid: String? = nil) throws {
        guard !formattedName.allSatisfy(\.isWhitespace) else { throw VCardError.blankFormattedName }
        self.formattedName = formattedName
        self.name = name
        self.phones = phones
        self.emails = emails
        self.addresses = addresses
        self.organization = organization
        self.role = role
        self.note = note
        self.uid = uid
    }

    /// The card as `text/vcard; charset=utf-8`.
    public var text: String {
        contentLines.map { VCardLine.fold($0) + "\r\n" }.joined()
    }

    /// Several cards in one `text/vcard` body.
    public static func text(of cards: [VCard]) -> String {
        cards.map(\.text).joined()
    }

    /// The unfolded content lines, BEGIN to END.
    var contentLines: [String] {
        var lines = ["BEGIN:VCARD", "VERSION:4.0", "PRODID:-//Tessera//Baby diary//EN"]
        lines.append("FN:" + VCardLine.escape(formattedName))
        if let name {
            lines.append("N:" + [name.family, name.given, name.additional, name.prefixes, name.suffixes]
                .map { $0.map(VCardLine.escape).joined(separator: ",") }.joined(separator: ";"))
        }
        lines += phones.map(Self.telLine)
        lines += emails.map { "EMAIL" + VCardLine.typeParameter($0.types) + ":" + VCardLine.escape($0.address) }
        lines += addresses.map { address in
            "ADR" + VCardLine.typeParameter(address.types) + ":"
                + ["", "", address.street, address.locality, address.region, address.postalCode, address.country]
                .map(VCardLine.escape).joined(separator: ";")
        }
        if let organization { lines.append("ORG:" + VCardLine.escape(organization)) }
        if let role { lines.append("ROLE:" + VCardLine.escape(role)) }
        if let note { lines.append("NOTE:" + VCardLine.escape(note)) }
        if let uid { lines.append("UID:" + VCardLine.escape(uid)) }
        lines.append("END:VCARD")
        return lines
    }

    /// A number that is international (+ and digits once spaces, dashes, dots and brackets go) is
    /// written as a tel: URI (§6.4.1 recommends it); anything else stays the text as entered.
    static func telLine(_ phone: Phone) -> String {
        let compact = phone.number.filter { !" -.()/".contains($0) }
        let types = VCardLine.typeParameter(phone.types)
        if compact.hasPrefix("+"), compact.count > 1, compact.dropFirst().allSatisfy(\.isASCII), compact.dropFirst().allSatisfy(\.isNumber) {
            return "TEL;VALUE=uri" + types + ":tel:" + compact
        }
        return "TEL" + types + ":" + VCardLine.escape(phone.number)
    }
}

/// Why a card could not be made.
public enum VCardError: Error, Equatable, CustomStringConvertible {
    /// FN, the one property RFC 6350 requires, was blank.
    case blankFormattedName

    /// A sentence naming the field.
    public var description: String {
        switch self {
        case .blankFormattedName: "formattedName (FN) must not be blank"
        }
    }
}

/// RFC 6350's line rules: escaping text values and folding long lines.
enum VCardLine {
    /// §3.4: backslash, comma and semicolon escaped with a backslash; a line break becomes \n.
    static func escape(_ value: String) -> String {
        var out = ""
        var previousWasCR = false
        for scalar in value.unicodeScalars {
            defer { previousWasCR = scalar == "\r" }
            switch scalar {
            case "\\": out += "\\\\"
            case ",": out += "\\,"
            case ";": out += "\\;"
            case "\r": out += "\\n"
            case "\n": if !previousWasCR { out += "\\n" }  // CRLF is one line break
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `;TYPE=a,b` or nothing.
    static func typeParameter(_ kinds: [VCard.Kind]) -> String {
        kinds.isEmpty ? "" : ";TYPE=" + kinds.map(\.rawValue).joined(separator: ",")
    }

    /// §3.2: a line longer than 75 octets is broken with CRLF and one space; every physical line,
    /// the leading space included, is at most 75 octets, and a break never falls inside a UTF-8
    /// sequence.
    static func fold(_ line: String) -> String {
        var physical: [String] = []
        var current = ""
        var octets = 0
        for scalar in line.unicodeScalars {
            let size = String(scalar).utf8.count
            if octets + size > 75 {
                physical.append(current)
                current = " "
                octets = 1
            }
            current.unicodeScalars.append(scalar)
            octets += size
        }
        physical.append(current)
        return physical.joined(separator: "\r\n")
    }
}
