import Foundation

/// IS/STAG web-service bases (spec §2.5); a custom base may be given instead.
public enum Universities {
    public static let all: [(id: Int, name: String, wsBase: String)] = [
        (1, "Akademie výtvarných umění v Praze", "https://stag-avu.zcu.cz/ws"),
        (2, "Jihočeská univerzita v Českých Budějovicích", "https://stag-ws.jcu.cz/ws"),
        (3, "Ostravská univerzita", "https://wsstag.osu.cz/ws"),
        (4, "Technická univerzita v Liberci", "https://stag-ws.tul.cz/ws"),
        (5, "Univerzita Hradec Králové", "https://stagws.uhk.cz/ws"),
        (6, "Univerzita J. E. Purkyně v Ústí nad Labem", "https://ws.ujep.cz/ws"),
        (7, "Univerzita Pardubice", "https://stag-ws.upce.cz/ws"),
        (8, "Univerzita Palackého v Olomouci", "https://stag-ws.upol.cz/ws"),
        (9, "Univerzita Tomáše Bati ve Zlíně", "https://stag-ws.utb.cz/ws"),
        (10, "Veterinární a farmaceutická univerzita Brno", "https://stagweb.vfu.cz/ws"),
        (11, "Vysoká škola PRIGO", "https://stag-vsss.zcu.cz/ws"),
        (12, "Západočeská univerzita v Plzni", "https://stag-ws.zcu.cz/ws"),
        (13, "DEMO – Západočeská univerzita v Plzni", "https://stag-demo.zcu.cz/ws"),
    ]

    /// The SSO login URL (spec §2.2 b) for a base and the page the ticket comes back to.
    public static func loginURL(wsBase: String, originalURL: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encoded = originalURL.addingPercentEncoding(withAllowedCharacters: allowed) ?? originalURL
        return "\(wsBase)/login?originalURL=\(encoded)&longTicket=true"
    }
}
