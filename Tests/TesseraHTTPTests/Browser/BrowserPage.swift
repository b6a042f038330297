import Foundation
import Testing
import TesseraSDK
import TesseraTestFixtures

/// One tab of a ``HeadlessChromium``: navigate, run JavaScript, wait for a condition, type, take a
/// screenshot. Every call blocks, so a test runs them on a thread of its own (``onThread(_:)``).
final class BrowserPage: @unchecked Sendable {
    let browser: HeadlessChromium
    let session: String

    /// Opens a new tab and attaches to it.
    init(_ browser: HeadlessChromium) throws {
        self.browser = browser
        let target = try browser.send("Target.createTarget", ["url": "about:blank"])
        let attached = try browser.send("Target.attachToTarget", ["targetId": target["targetId"] ?? "", "flatten": true])
        guard let session = attached["sessionId"]?.stringValue else { throw HeadlessChromium.Failure("no session: \(attached)") }
        self.session = session
        _ = try send("Page.enable")
        _ = try send("Runtime.enable")
        _ = try send("Log.enable")
    }

    /// A screen size the pages must work at: the theses' apps were phone apps.
    enum Viewport {
        /// 390 × 844 CSS pixels, a phone held upright (an iPhone 12 to 15), at its pixel ratio 3.
        case phone
        /// 1280 × 1000, a laptop's browser window.
        case desktop
    }

    /// Makes the tab the size of `viewport` (a phone also gets touch and the mobile layout).
    func use(_ viewport: Viewport) throws {
        switch viewport {
        case .phone:
            _ = try send("Emulation.setDeviceMetricsOverride", ["width": 390, "height": 844, "deviceScaleFactor": 3, "mobile": true])
            _ = try send("Emulation.setTouchEmulationEnabled", ["enabled": true])
        case .desktop:
            _ = try send("Emulation.clearDeviceMetricsOverride")
            _ = try send("Emulation.setTouchEmulationEnabled", ["enabled": false])
        }
    }

    /// Screenshots of the page at both sizes, `<name>-phone.png` and `<name>-desktop.png` in
    /// `folder`; the tab is left at desktop size.
    func screenshots(_ name: String, in folder: String) throws {
        try use(.phone)
        try screenshot(to: "\(folder)/\(name)-phone.png")
        try use(.desktop)
        try screenshot(to: "\(folder)/\(name)-desktop.png")
    }

    /// What a person meets at a step of a walk, checked: nothing meant for developers on the page,
    /// and nothing wider than a phone or a desktop window; screenshots of both as
    /// `<name>-phone.png` and `<name>-desktop.png` in `folder`. The tab is left at desktop size.
    func looksRight(_ name: String, in folder: String) throws {
        #expect(try developerText() == [], "developer text at \(name)")
        try use(.phone)
        #expect(try fitsItsWidth(), "\(name) is wider than a phone")
        try screenshots(name, in: folder)
        #expect(try fitsItsWidth(), "\(name) is wider than a desktop window")
    }

    /// Whether the page can be read without scrolling sideways (nothing wider than the screen).
    func fitsItsWidth() throws -> Bool {
        try evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1") == true
    }

    /// The texts a person would see that are meant for developers: JSON paths, regular
    /// expressions, codes, ISO timestamps, config keys (`providers.…`). Empty when there are none.
    func developerText() throws -> [String] {
        let found = try evaluate("""
            (() => {
              const text = document.body.innerText;
              const patterns = [/\\$\\.[A-Za-z_]/, /\\(code [A-Za-z_]+\\)/, /\\b\\d{4}-\\d{2}-\\d{2}\\b/,
                                /\\/\\^[^/]*\\$?\\//, /providers\\.[a-z]+/, /\\b[A-Z]{2,}_[A-Z_]{2,}\\b/, /\\bUC\\d+:/];
              return patterns.map((p) => (text.match(p) || [null])[0]).filter(Boolean);
            })()
            """)
        return found.arrayValue?.compactMap(\.stringValue) ?? []
    }

    func send(_ method: String, _ params: JSONValue = [:]) throws -> JSONValue {
        try browser.send(method, params, session: session)
    }

    func navigate(_ url: String) throws {
        _ = try send("Page.navigate", ["url": .string(url)])
    }

    /// The value of a JavaScript expression (awaited if it is a promise). A thrown exception fails.
    @discardableResult
    func evaluate(_ expression: String) throws -> JSONValue {
        let result = try send("Runtime.evaluate", ["expression": .string(expression), "awaitPromise": true, "returnByValue": true])
        if let exception = result["exceptionDetails"] {
            throw HeadlessChromium.Failure("\(expression.prefix(80)): \(exception["exception"]?["description"]?.stringValue ?? exception.serialized())")
        }
        return result["result"]?["value"] ?? .null
    }

    /// Waits until `expression` is truthy; fails after `seconds` with `what` and the page's text.
    func waitFor(_ expression: String, _ what: String, seconds: Double = 20) throws {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let value = try? evaluate("Boolean(\(expression))"), value == true { return }
            Thread.sleep(forTimeInterval: 0.1)
        }
        let text = (try? evaluate("document.documentElement.outerHTML"))?.stringValue ?? ""
        throw HeadlessChromium.Failure("timed out waiting for \(what); the page is: \(text.prefix(4000))")
    }

    /// Focuses the element with `id` and types `text` into it, as a keyboard would.
    func type(_ text: String, into id: String) throws {
        try evaluate("document.getElementById(\(Self.quoted(id))).focus()")
        _ = try send("Input.insertText", ["text": .string(text)])
    }

    /// Chooses `value` in the select with `id`, and tells the page it changed.
    func choose(_ value: String, in id: String) throws {
        try evaluate("""
            (() => { const s = document.getElementById(\(Self.quoted(id))); s.value = \(Self.quoted(value));
                     s.dispatchEvent(new Event('change', {bubbles: true})); return s.value; })()
            """)
    }

    /// Clicks the element `selector` names.
    func click(_ selector: String) throws {
        try evaluate("document.querySelector(\(Self.quoted(selector))).click()")
    }

    /// A PNG of the whole page, written to `path`.
    func screenshot(to path: String) throws {
        // A tab behind another draws no frames, and Chromium never answers a screenshot of it: a
        // test with two people's pages in one browser hung so (SafeTravelGuardiansPageBrowserTests).
        _ = try send("Page.bringToFront")
        let shot = try send("Page.captureScreenshot", ["format": "png", "captureBeyondViewport": true])
        guard let data = shot["data"]?.stringValue.flatMap({ Data(base64Encoded: $0) }) else { throw HeadlessChromium.Failure("no screenshot") }
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path))
    }

    /// `text` as a JavaScript string literal.
    static func quoted(_ text: String) -> String { JSONValue.string(text).serialized() }
}
