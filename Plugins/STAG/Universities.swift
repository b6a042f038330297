/// The universities whose IS/STAG web-service base URLs are known (anchors-domain.md §4, from
/// StagApp's list); any other is given as `baseURL`.
enum Universities {
    static let all: [(id: String, name: String, base: String)] = [
        ("zcu", "Západočeská univerzita v Plzni", "https://stag-ws.zcu.cz/ws"),
        ("demo", "IS/STAG demo (ZČU)", "https://stag-demo.zcu.cz/ws"),
        ("jcu", "Jihočeská univerzita", "https://stag-ws.jcu.cz/ws"),
        ("osu", "Ostravská univerzita", "https://wsstag.osu.cz/ws"),
        ("tul", "Technická univerzita v Liberci", "https://stag-ws.tul.cz/ws"),
        ("uhk", "Univerzita Hradec Králové", "https://stagws.uhk.cz/ws"),
        ("ujep", "Univerzita J. E. Purkyně", "https://ws.ujep.cz/ws"),
        ("upce", "Univerzita Pardubice", "https://stag-ws.upce.cz/ws"),
        ("upol", "Univerzita Palackého v Olomouci", "https://stag-ws.upol.cz/ws"),
        ("utb", "Univerzita Tomáše Bati ve Zlíně", "https://stag-ws.utb.cz/ws"),
        ("vfu", "Veterinární univerzita Brno", "https://stagweb.vfu.cz/ws"),
        ("avu", "Akademie výtvarných umění", "https://stag-avu.zcu.cz/ws"),
    ]

    /// The base URL for `university` (an id above) or `baseURL` (an `https://…/ws` of one not listed).
    static func base(university: String?, baseURL: String?) -> String? {
        if let id = university { return all.first { $0.id == id }?.base }
        guard let custom = baseURL, custom.hasPrefix("https://") || custom.hasPrefix("http://") else { return nil }
        return custom.hasSuffix("/") ? String(custom.dropLast()) : custom
    }
}
