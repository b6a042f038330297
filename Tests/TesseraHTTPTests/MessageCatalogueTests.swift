import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// The message catalogues of the console and of every shipped module page (docs/console.md,
/// "Languages"): Czech, Slovak and English each have every key, with the same placeholders and
/// the plural forms the language needs, and every key a page names in its HTML or scripts is in
/// them. A key a page builds at run time is checked in the browser instead (i18n.js reports a
/// missing one as a console error, which fails every browser test).
@Suite struct MessageCatalogueTests {
    static let languages = ["cs", "sk", "en"]
    /// The plural forms each language's rules choose from (Intl.PluralRules, cardinal).
    static let pluralForms = ["cs": ["one", "few", "many", "other"], "sk": ["one", "few", "many", "other"], "en": ["one", "other"]]

    /// The console's folder, and each shipped module's page folder.
    static var pageFolders: [String] {
        let plugins = Fixtures.repositoryRoot + "/Plugins"
        let modules = ((try? FileManager.default.contentsOfDirectory(atPath: plugins)) ?? []).sorted()
            .map { "\(plugins)/\($0)/ui" }.filter { FileManager.default.fileExists(atPath: $0 + "/index.html") }
        return [Fixtures.repositoryRoot + "/console"] + modules
    }

    static func catalogue(_ folder: String, _ language: String) throws -> [String: JSONValue] {
        let text = try String(contentsOfFile: "\(folder)/messages/\(language).json", encoding: .utf8)
        return try #require(try JSONValue(parsing: Array(text.utf8)).objectValue, "\(folder)/messages/\(language).json is not an object")
    }

    static func placeholders(_ message: JSONValue) -> Set<String> {
        let texts = message.stringValue.map { [$0] } ?? (message.objectValue?.values.compactMap(\.stringValue) ?? [])
        var names = Set<String>()
        for text in texts {
            var rest = Substring(text)
            while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                names.insert(String(rest[rest.index(after: open)..<close]))
                rest = rest[rest.index(after: close)...]
            }
        }
        return names.subtracting(["count"])  // a plural message's count may go unsaid ("a minute")
    }

    @Test(arguments: pageFolders) func everyLanguageHasEveryMessageWithTheSamePlaceholders(folder: String) throws {
        let english = try Self.catalogue(folder, "en")
        #expect(!english.isEmpty)
        for language in Self.languages {
            let messages = try Self.catalogue(folder, language)
            let name = "\(folder.replacingOccurrences(of: Fixtures.repositoryRoot + "/", with: ""))/messages/\(language).json"
            #expect(Set(messages.keys).symmetricDifference(english.keys).isEmpty,
                    "\(name): missing \(Set(english.keys).subtracting(messages.keys).sorted()), extra \(Set(messages.keys).subtracting(english.keys).sorted())")
            for (key, message) in messages {
                if let forms = message.objectValue {
                    #expect(Set(Self.pluralForms[language]!).isSubset(of: Set(forms.keys)), "\(name): \(key) needs the forms \(Self.pluralForms[language]!)")
                } else {
                    #expect(!(message.stringValue ?? "").isEmpty, "\(name): \(key) is empty")
                }
                if let original = english[key] {
                    #expect(Self.placeholders(message) == Self.placeholders(original), "\(name): \(key) has other placeholders than in English")
                }
            }
        }
    }

    /// The keys a page's files name literally: `data-i18n="key"`, `data-i18n-attr="attribute:key …"`,
    /// and `t("key"` in scripts.
    static func namedKeys(in folder: String) throws -> [String: String] {
        var keys: [String: String] = [:]
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder).filter { $0.hasSuffix(".html") || $0.hasSuffix(".js") }
        let patterns = [#"data-i18n="([^"]+)""#, #"\bt\(\s*"([A-Za-z0-9_.\-]+)""#, #"\bt\(\s*'([A-Za-z0-9_.\-]+)'"#]
        for file in files {
            // Comments explain the conventions with made-up keys: they are not read.
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
                .filter { line in !["//", "*", "/*"].contains { line.trimmingCharacters(in: .whitespaces).hasPrefix($0) } }.joined(separator: "\n")
            for pattern in patterns {
                for match in try Regex(pattern).matchesIn(text) { keys[match, default: file] = file }
            }
            for match in try Regex(#"data-i18n-attr="([^"]+)""#).matchesIn(text) {
                for pair in match.split(separator: " ") where pair.contains(":") { keys[String(pair.split(separator: ":")[1])] = file }
            }
        }
        return keys
    }

    @Test(arguments: pageFolders) func everyKeyAPageNamesIsInItsCatalogues(folder: String) throws {
        let console = try Self.catalogue(Fixtures.repositoryRoot + "/console", "en")
        let own = try Self.catalogue(folder, "en")
        for (key, file) in try Self.namedKeys(in: folder) where own[key] == nil && console[key] == nil {
            Issue.record("\(folder)/\(file) names the message \"\(key)\", which no catalogue has")
        }
    }

    @Test(arguments: pageFolders) func noPageHasAnInlineStyleOrScript(folder: String) throws {
        // The host's Content-Security-Policy blocks both; the browser tests catch what a script adds.
        for file in try FileManager.default.subpathsOfDirectory(atPath: folder) where file.hasSuffix(".html") {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            #expect(!text.contains("<style"), "\(file) has a <style> element")
            #expect(!text.contains(" style=\""), "\(file) has a style attribute")
            #expect(try Regex(#"<script(?![^>]*\bsrc=)[^>]*>"#).matchesIn(text, group: 0).isEmpty, "\(file) has an inline script")
            #expect(try Regex(#"\son[a-z]+=""#).matchesIn(text, group: 0).isEmpty, "\(file) has an event handler attribute")
        }
    }
}

private extension Regex where Output == AnyRegexOutput {
    /// The text of capture `group` of every match.
    func matchesIn(_ text: String, group: Int = 1) -> [String] {
        text.matches(of: self).compactMap { $0.output[group].substring.map(String.init) }
    }
}
