import Foundation
import TesseraTestFixtures

/// The probe plugin's `ui` folder for the static-file tests: a page, a script, a style, a hidden
/// file, a file of an unknown type, and a symbolic link to a file outside the folder — with a
/// secret beside the folder that no request may reach.
enum ModuleFiles {
    static let secret = "SECRET-OUTSIDE-THE-UI-FOLDER"

    /// Writes the folder under `root`; returns its path.
    static func write(in root: String) -> String {
        let folder = root + "/probe-ui"
        Fixtures.write("<!doctype html><title>Probe</title><p>probe page</p>", to: folder + "/index.html")
        Fixtures.write("export const x = 1;", to: folder + "/app.js")
        Fixtures.write("body { color: red; }", to: folder + "/style.css")
        Fixtures.write("<svg xmlns='http://www.w3.org/2000/svg'/>", to: folder + "/img/dot.svg")
        Fixtures.write("hidden", to: folder + "/.env")
        Fixtures.write("bytes", to: folder + "/data.bin")
        Fixtures.write(secret, to: root + "/secret.txt")
        try? FileManager.default.createSymbolicLink(atPath: folder + "/escape.txt", withDestinationPath: root + "/secret.txt")
        return folder
    }
}
