import Foundation

/// Foundation's networking and XML, loaded on first use from `libTesseraFoundationOnDemand.so`
/// (the `TesseraFoundationOnDemand` target; docs/architecture.md, "Loaded on first use").
///
/// Linked into `tessera`, `FoundationNetworking` (libcurl, GnuTLS, Kerberos, nghttp2, …) and
/// `FoundationXML` (libxml2) were mapped and relocated at every start, about 6.5 MB resident,
/// though most hosts send no request and read no GPX. Now the library is `dlopen`ed by the first
/// outbound request or GPX file, and the host links neither module. The library links no Tessera
/// module, so only bytes cross (``HTTPExchange``'s frames), never a Swift type: a module present
/// twice in one process breaks casts silently (research/anchors-plugin-runtimes.md).
///
/// The library is looked for at `$TESSERA_ON_DEMAND_LIBRARY`, then beside the running executable
/// (where SwiftPM builds it), then by the dynamic linker's search path.
public enum OnDemandFoundation {
    /// The library's file name.
    public static let libraryName = "libTesseraFoundationOnDemand.so"

    typealias Done = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<UInt8>?, Int) -> Void
    typealias Entry = @convention(c) (UnsafePointer<UInt8>, Int, UnsafeMutableRawPointer?, Done) -> Void

    struct Library: @unchecked Sendable {
        let exchange: Entry
        let xmlEvents: Entry
    }

    /// The library, loaded once; why not, if it could not be.
    static let library: Result<Library, OnDemandUnavailable> = load()

    private static func candidates() -> [String] {
        var paths: [String] = []
        if let explicit = ProcessInfo.processInfo.environment["TESSERA_ON_DEMAND_LIBRARY"], !explicit.isEmpty { paths.append(explicit) }
        if let executable = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            paths.append(((executable as NSString).deletingLastPathComponent as NSString).appendingPathComponent(libraryName))
        }
        paths.append(libraryName)
        return paths
    }

    private static func load() -> Result<Library, OnDemandUnavailable> {
        var reasons: [String] = []
        for path in candidates() {
            guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
                reasons.append(dlerror().map { String(cString: $0) } ?? path)
                continue
            }
            typealias ABI = @convention(c) () -> Int32
            guard let abi = dlsym(handle, "tessera_on_demand_abi").map({ unsafeBitCast($0, to: ABI.self)() }), abi == 1,
                  let exchange = dlsym(handle, "tessera_on_demand_exchange"), let xml = dlsym(handle, "tessera_on_demand_xml_events") else {
                reasons.append("\(path): not the library this host was built with (boundary version 1)")
                continue
            }
            return .success(Library(exchange: unsafeBitCast(exchange, to: Entry.self), xmlEvents: unsafeBitCast(xml, to: Entry.self)))
        }
        let unavailable = OnDemandUnavailable(reasons: reasons)
        FileHandle.standardError.write(Data("tessera: \(unavailable)\n".utf8))
        return .failure(unavailable)
    }

    /// Calls `entry` with `frame` and returns the frame it answers with (copied).
    static func call(_ entry: Entry, _ frame: [UInt8]) async -> [UInt8] {
        await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8], Never>) in
            let box = Unmanaged.passRetained(AnswerBox(continuation)).toOpaque()
            frame.withUnsafeBufferPointer { entry($0.baseAddress!, $0.count, box, AnswerBox.done) }
        }
    }

    /// Calls a synchronous `entry` (it answers before it returns).
    static func callNow(_ entry: Entry, _ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        let sink = AnswerSink()
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(bitPattern: 1)!
        withExtendedLifetime(sink) {
            entry(base, bytes.count, Unmanaged.passUnretained(sink).toOpaque()) { context, answer, count in
                Unmanaged<AnswerSink>.fromOpaque(context!).takeUnretainedValue().bytes = Array(UnsafeBufferPointer(start: answer, count: count))
            }
        }
        return sink.bytes
    }
}

/// Holds a synchronous call's answer.
private final class AnswerSink {
    var bytes: [UInt8] = []
}

/// Carries an asynchronous call's continuation through the C boundary.
private final class AnswerBox {
    let continuation: CheckedContinuation<[UInt8], Never>
    init(_ continuation: CheckedContinuation<[UInt8], Never>) { self.continuation = continuation }

    static let done: OnDemandFoundation.Done = { context, bytes, count in
        let box = Unmanaged<AnswerBox>.fromOpaque(context!).takeRetainedValue()
        box.continuation.resume(returning: Array(UnsafeBufferPointer(start: bytes, count: count)))
    }
}

/// The library could not be loaded: outbound HTTP and GPX reading are unavailable in this process.
public struct OnDemandUnavailable: Error, CustomStringConvertible {
    let reasons: [String]
    public var description: String {
        "outbound HTTP and GPX reading need \(OnDemandFoundation.libraryName) beside the executable, which could not be loaded (\(reasons.joined(separator: "; ")))"
    }
}

/// The frames that cross the boundary: a 4-byte big-endian length, the JSON header, the body.
/// The library has the other half (`OnDemandFrame` in TesseraFoundationOnDemand): the two sides
/// cannot share a module, since the library must link nothing of Tessera's.
enum OnDemandFrame {
    static func make(_ header: [String: Any], _ body: [UInt8]) -> [UInt8] {
        let json = [UInt8]((try? JSONSerialization.data(withJSONObject: header)) ?? Data("{}".utf8))
        let n = UInt32(json.count)
        return [UInt8(n >> 24), UInt8((n >> 16) & 0xff), UInt8((n >> 8) & 0xff), UInt8(n & 0xff)] + json + body
    }

    static func split(_ frame: [UInt8]) -> ([String: Any], [UInt8])? {
        guard frame.count >= 4 else { return nil }
        let length = Int(frame[0]) << 24 | Int(frame[1]) << 16 | Int(frame[2]) << 8 | Int(frame[3])
        guard frame.count >= 4 + length,
              let header = try? JSONSerialization.jsonObject(with: Data(frame[4..<(4 + length)])) as? [String: Any] else { return nil }
        return (header, Array(frame[(4 + length)...]))
    }
}
