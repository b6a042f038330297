import Foundation
import TesseraSDK

/// The content pack in force, and the operations that read and replace it: the library tree
/// (F5), the about pages (F2, F3, G9), the version check with its "unchanged" answer (D3) and an
/// administrator's newer pack. None of it is the participant's data, so it is readable in every
/// account state — the consent text is read before consenting.
extension Study {
    func content() async throws -> ContentPack {
        guard let row = try await storage.query("SELECT version FROM content WHERE id = 'pack'").first,
              let version = row["version"].integer, Int(version) > ShippedContent.pack.version else { return ShippedContent.pack }
        if let cached = contentCache.pack(version: Int(version)) { return cached }
        guard let json = try await storage.query("SELECT json FROM content WHERE id = 'pack'").first?["json"].text,
              let pack = try? JSONDecoder().decode(ContentPack.self, from: Data(json.utf8)) else { return ShippedContent.pack }
        contentCache.keep(pack)
        return pack
    }

    struct VersionAnswer: Encodable, Sendable { var version: Int; var unchanged: Bool; var pack: JSONValue? }

    /// The version in force; with `since` equal to it, only "unchanged" (the thesis's 204).
    func contentVersion(since: Int?) async throws -> VersionAnswer {
        let pack = try await content()
        if since == pack.version { return VersionAnswer(version: pack.version, unchanged: true, pack: nil) }
        return VersionAnswer(version: pack.version, unchanged: false, pack: try JSONValue(encoding: pack))
    }

    /// Installs a newer pack (administrators): checked whole, and only a higher version than the
    /// one in force, so that an old pack never replaces a newer shipped one.
    func publishContent(_ json: JSONValue) async throws -> VersionAnswer {
        let pack: ContentPack
        // The SDK's decoder on the tree (as typed operations use): its errors name the member at
        // fault and the rule, which the caller gets instead of Swift's own error text.
        do { pack = try json.decode(as: ContentPack.self) } catch {
            throw PluginError.invalidInput(decoding: error, at: "$.pack")
        }
        try pack.validate()
        let current = try await content().version
        guard pack.version > current else {
            throw PluginError.refused(.contentOutdated, "version \(pack.version) is not newer than the version in force, \(current)")
        }
        try await storage.write { $0.put("content", id: "pack", ["version": .integer(Int64(pack.version)), "json": .text(json.serialized())]) }
        return VersionAnswer(version: pack.version, unchanged: false, pack: nil)
    }

    // MARK: Library

    struct LibraryPage: Encodable, Sendable {
        struct Link: Encodable, Sendable { var id: String; var title: String; var hasChildren: Bool }
        var id: String?
        var title: String?
        var text: String
        var path: [Link]
        var children: [Link]
    }

    /// A node's text and its children, at any depth; without `id`, the library's intro and its
    /// top-level sections.
    func library(_ id: String?) async throws -> LibraryPage {
        let s = try await snapshot()
        let language = s.settings.language, nodes = s.content.library
        func link(_ node: ContentPack.LibraryNode) -> LibraryPage.Link {
            .init(id: node.id, title: node.title.text(language), hasChildren: nodes.contains { $0.parent == node.id })
        }
        let children = nodes.filter { $0.parent == id }.sorted { ($0.position, $0.id) < ($1.position, $1.id) }.map(link)
        guard let id else { return LibraryPage(text: s.content.libraryIntro.text(language), path: [], children: children) }
        guard let node = nodes.first(where: { $0.id == id }) else { throw PluginError(.notFound, "there is no library section '\(id)'", field: "$.id") }
        var path: [LibraryPage.Link] = []
        var parent = node.parent
        while let parentID = parent, let up = nodes.first(where: { $0.id == parentID }) {
            path.insert(link(up), at: 0)
            parent = up.parent
        }
        return LibraryPage(id: node.id, title: node.title.text(language), text: node.text.text(language), path: path, children: children)
    }

    // MARK: About

    struct Team: Encodable, Sendable {
        struct Category: Encodable, Sendable { var name: String; var members: [Member] }
        /// Contacts come with `mailto:` and `tel:` links, so that a client can make them tappable
        /// (the thesis's usability test, G-c).
        struct Member: Encodable, Sendable {
            var heading: String; var description: String?; var email: String?; var phone: String?; var image: String?
            var emailLink: String?; var phoneLink: String?
        }
        var categories: [Category]
    }

    func team() async throws -> Team {
        let s = try await snapshot()
        let language = s.settings.language
        return Team(categories: s.content.team.map { category in
            .init(name: category.name.text(language), members: category.members.map { m in
                .init(heading: m.heading, description: m.description?.text(language), email: m.email, phone: m.phone, image: m.image,
                      emailLink: m.email.map { "mailto:\($0)" }, phoneLink: m.phone.map { "tel:" + $0.filter { $0 != " " } })
            })
        })
    }

    struct ResearchPage: Encodable, Sendable {
        struct Section: Encodable, Sendable { var name: String; var text: String }
        var text: String
        var subsections: [Section]
        var consentVersion: String
    }

    func research() async throws -> ResearchPage {
        let s = try await snapshot()
        let language = s.settings.language
        return ResearchPage(text: s.content.research.text.text(language),
                            subsections: s.content.research.subsections.map { .init(name: $0.name.text(language), text: $0.text.text(language)) },
                            consentVersion: Self.consentVersion)
    }

    func techInfo() async throws -> JSONValue {
        let pack = try await content()
        return ["moduleVersion": .string(pack.tech.moduleVersion), "contentVersion": .integer(Int64(pack.version)), "website": .string(pack.tech.website)]
    }
}

/// The last installed pack decoded, so that every call does not decode it again.
final class ContentCache: @unchecked Sendable {
    private let lock = NSLock()
    private var kept: ContentPack?

    func pack(version: Int) -> ContentPack? { lock.withLock { kept?.version == version ? kept : nil } }
    func keep(_ pack: ContentPack) { lock.withLock { kept = pack } }
}
