import Foundation
import Testing
@testable import TesseraBaby

/// vCard 4.0 (RFC 6350): the properties a contact or doctor needs, escaping (§3.4), folding (§3.2), CRLF.
@Suite struct VCardTests {
    static func doctor() throws -> VCard {
        try VCard(formattedName: "MUDr. Jana Nováková",
                  name: .init(family: "Nováková", given: "Jana", prefixes: "MUDr."),
                  phones: [.init("+420 601 234 567", types: [.work, .voice]), .init("601 234 568", types: [.cell])],
                  emails: [.init("ordinace@example.cz", types: [.work])],
                  addresses: [.init(street: "Husova 12, 2. patro", locality: "Brno", postalCode: "602 00", country: "Česko", types: [.work])],
                  organization: "Dětská ordinace Husova", role: "Pediatr",
                  note: "Ordinační hodiny:\nPo–Pá 7:30–12:00; St 14:00–17:00")
    }

    @Test func aDoctorsCardHasEveryPropertyInOrder() throws {
        let text = try Self.doctor().text
        #expect(text == [
            "BEGIN:VCARD", "VERSION:4.0", "PRODID:-//Tessera//Baby diary//EN",
            "FN:MUDr. Jana Nováková",
            "N:Nováková;Jana;;MUDr.;",
            "TEL;VALUE=uri;TYPE=work,voice:tel:+420601234567",
            "TEL;TYPE=cell:601 234 568",
            "EMAIL;TYPE=work:ordinace@example.cz",
            "ADR;TYPE=work:;;Husova 12\\, 2. patro;Brno;;602 00;Česko",
            "ORG:Dětská ordinace Husova",
            "ROLE:Pediatr",
            "NOTE:Ordinační hodiny:\\nPo–Pá 7:30–12:00\\; St 14:00–17:00",
            "END:VCARD",
        ].map { $0 + "\r\n" }.joined())
    }

    @Test func everyLineEndsInCRLFAndNoBareLineFeedRemains() throws {
        let bytes = Array(try Self.doctor().text.utf8)
        for (index, byte) in bytes.enumerated() where byte == 0x0A {
            #expect(index > 0 && bytes[index - 1] == 0x0D, "LF at \(index) without CR")
        }
        #expect(bytes.suffix(2) == [0x0D, 0x0A])
    }

    @Test func commasSemicolonsBackslashesAndLineBreaksAreEscaped() {
        #expect(VCardLine.escape("a,b;c\\d") == "a\\,b\\;c\\\\d")
        #expect(VCardLine.escape("one\ntwo\r\nthree\rfour") == "one\\ntwo\\nthree\\nfour")
        #expect(VCardLine.escape("Žádné zvláštní znaky") == "Žádné zvláštní znaky")
    }

    @Test func longLinesFoldAt75OctetsWithoutSplittingACharacter() throws {
        // 2-, 3- and 4-octet characters, so some would straddle every possible break.
        for filler in ["ř", "€", "👶", "ař", "ab€"] {
            let note = String(repeating: filler, count: 120)
            let text = try VCard(formattedName: "X", note: note).text
            let physical = text.components(separatedBy: "\r\n").dropLast()
            for line in physical {
                #expect(line.utf8.count <= 75, "\(filler): \(line.utf8.count) octets")
                // Each physical line is valid UTF-8 by itself: no sequence was cut.
                #expect(String(validating: Array(line.utf8), as: UTF8.self) != nil)
            }
            let noteLines = physical.drop { !$0.hasPrefix("NOTE:") }.prefix { !$0.hasPrefix("END:") }
            #expect(noteLines.count > 1 && noteLines.dropFirst().allSatisfy { $0.hasPrefix(" ") })
            #expect(noteLines.first.map { $0.utf8.count >= 72 } == true, "\(filler): the first line is filled")
            // Unfolding (§3.2: remove CRLF followed by one space) gives back the logical line.
            #expect(text.replacingOccurrences(of: "\r\n ", with: "").contains("NOTE:" + note + "\r\n"))
        }
        #expect(VCardLine.fold(String(repeating: "a", count: 75)) == String(repeating: "a", count: 75))
        #expect(VCardLine.fold(String(repeating: "a", count: 76)) == String(repeating: "a", count: 75) + "\r\n a")
    }

    @Test func aPhoneNumberBecomesATelURIOnlyWhenItIsInternational() {
        #expect(VCard.telLine(.init("+420 (601) 234-567")) == "TEL;VALUE=uri:tel:+420601234567")
        #expect(VCard.telLine(.init("155")) == "TEL:155")
        #expect(VCard.telLine(.init("+420 601 23 45 67 linka 12", types: [.work])) == "TEL;TYPE=work:+420 601 23 45 67 linka 12")
    }

    @Test func aBlankFormattedNameIsRefused() {
        #expect(throws: VCardError.blankFormattedName) { try VCard(formattedName: " \n") }
        #expect(VCardError.blankFormattedName.description.contains("formattedName (FN)"))
    }

    @Test func severalCardsShareOneBody() throws {
        let body = VCard.text(of: [try Self.doctor(), try VCard(formattedName: "Babička Věra", phones: [.init("+420777000111", types: [.cell])])])
        #expect(body.components(separatedBy: "BEGIN:VCARD\r\n").count == 3)
        #expect(body.hasSuffix("TEL;VALUE=uri;TYPE=cell:tel:+420777000111\r\nEND:VCARD\r\n"))
    }
}
