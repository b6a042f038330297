import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Parses XML with namespaces processed and answers what `XMLParser` reported, in order, as one
/// frame whose header is `{"events": [...], "parsed": Bool, "error": code or null, "line": N}`;
/// each event is `["start", name, {attributes}, line]`, `["text", string]`, `["end", name, line]`
/// or `["error", code, line]`. Synchronous: `done` is called before this returns.
@_cdecl("tessera_on_demand_xml_events")
public func onDemandXMLEvents(_ bytes: UnsafePointer<UInt8>, _ count: Int, _ context: UnsafeMutableRawPointer?, _ done: OnDemandDone) {
    let parser = XMLParser(data: Data(UnsafeBufferPointer(start: bytes, count: count)))
    let recorder = XMLEventRecorder()
    parser.delegate = recorder
    parser.shouldProcessNamespaces = true
    let parsed = parser.parse()
    let code: Any = parser.parserError.map { ($0 as NSError).code } ?? NSNull()
    OnDemandFrame.answer(["events": recorder.events, "parsed": parsed, "error": code, "line": parser.lineNumber], [], context, done)
}

private final class XMLEventRecorder: NSObject, XMLParserDelegate {
    var events: [[Any]] = []

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        events.append(["start", name, attributes, parser.lineNumber])
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        events.append(["text", string])
    }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        events.append(["end", name, parser.lineNumber])
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        events.append(["error", (parseError as NSError).code, parser.lineNumber])
    }
}
