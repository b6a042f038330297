import Foundation
import TesseraSDK

/// What one plugin may store, from its effective `files` grant: the media types its manifest
/// declares (`mediaTypes`), the total it may keep (`quotaMB`) and the largest file (`maxFileMB`).
public struct FilePolicy: Sendable, Hashable {
    /// The media types the plugin may store; `application/octet-stream` accepts any content.
    public var mediaTypes: Set<String>
    /// The most bytes the plugin's files may take together, if limited.
    public var quotaBytes: Int64?
    /// The largest file, in bytes, if limited.
    public var maxFileBytes: Int64?

    public init(mediaTypes: Set<String>, quotaBytes: Int64?, maxFileBytes: Int64?) {
        self.mediaTypes = mediaTypes
        self.quotaBytes = quotaBytes
        self.maxFileBytes = maxFileBytes
    }

    /// The policy of an effective grant (`{"mediaTypes": [...], "quotaMB": 500, "maxFileMB": 20}`).
    public init(grant: JSONValue) {
        func bytes(_ key: String) -> Int64? { grant[key]?.doubleValue.map { Int64($0 * 1_048_576) } }
        self.init(mediaTypes: Set(grant["mediaTypes"]?.arrayValue?.compactMap(\.stringValue) ?? []),
                  quotaBytes: bytes("quotaMB"), maxFileBytes: bytes("maxFileMB"))
    }

    /// The media type a file is stored under, given what its content is (`sniffed`, `nil` when
    /// the host does not recognise it) and what the caller said it is (`claimed`, if anything).
    /// Refuses with `unsupported_media_type` naming the rule: content not of the type claimed, or
    /// of a type the manifest does not declare.
    public func accept(sniffed: String?, claimed: String?) throws(PluginError) -> String {
        let declaredText = mediaTypes.sorted().joined(separator: ", ")
        let anyContent = mediaTypes.contains(MediaSniffer.anyContent)
        let claimed = claimed.map(Self.normalized).flatMap { $0 == MediaSniffer.anyContent || $0.isEmpty ? nil : $0 }
        if let claimed, claimed != sniffed, !(claimed == "text/plain" && sniffed == "application/json") {
            throw PluginError(.unsupportedMediaType,
                              "files: the content does not match the media type given: said \(claimed), the content is \(sniffed ?? "of no type the host recognises")")
        }
        guard let type = claimed ?? sniffed else {
            if anyContent { return MediaSniffer.anyContent }
            throw PluginError(.unsupportedMediaType,
                              "files: the content is of no media type the host recognises; the manifest declares \(declaredText)")
        }
        guard mediaTypes.contains(type) || anyContent else {
            throw PluginError(.unsupportedMediaType, "files: media type \(type) is not declared in the manifest (permissions.files.mediaTypes: \(declaredText))")
        }
        return type
    }

    /// `image/JPEG; q=1` → `image/jpeg`.
    static func normalized(_ mediaType: String) -> String {
        String(mediaType.split(separator: ";", maxSplits: 1).first ?? "").trimmingCharacters(in: .whitespaces).lowercased()
    }
}
