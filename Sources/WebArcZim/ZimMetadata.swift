import Foundation
import WebArc

/// A ZIM's metadata (`M` namespace: `Title`, `Language`, `Creator`, `Date`,
/// `Illustration_48x48@1`…) read once, and how it becomes archive metadata and back.
///
/// In an archive each is the entry `zim:NAME`, text as it is and anything else (the PNG
/// illustrations) as a `data:` URL, so that an export writes the same metadata again.
struct ZimMetadata {
    /// The prefix of the archive metadata entries that hold ZIM metadata.
    static let entryPrefix = "zim:"
    /// The most bytes one metadata value may hold.
    static let maxValueSize: UInt64 = 16 << 20

    /// Names and values in the ZIM's order.
    private(set) var values: [(name: String, bytes: [UInt8], mimeType: String)] = []

    /// Reads every metadata value.
    ///
    /// - Throws: ``ZimError/libzim(file:entry:message:)`` for a value libzim cannot read or one
    ///   over 16 MiB.
    init(reading zim: ZimArchive) throws {
        for name in try zim.metadataNames() {
            guard let bytes = try zim.metadata(name, maxSize: Self.maxValueSize) else { continue }
            values.append((name, bytes, Self.isText(name: name, bytes: bytes) ? "text/plain" : "image/png"))
        }
    }

    /// Metadata from an archive's `zim:` entries.
    init(archive metadata: ArchiveMetadata) {
        for entry in metadata.entries where entry.key.hasPrefix(Self.entryPrefix) {
            let name = String(entry.key.dropFirst(Self.entryPrefix.count))
            if let (mimeType, bytes) = Self.decodeDataURL(entry.value) {
                values.append((name, bytes, mimeType))
            } else {
                values.append((name, Array(entry.value.utf8), "text/plain"))
            }
        }
    }

    /// The UTF-8 text of `name`, or nil.
    func text(_ name: String) -> String? {
        values.first { $0.name == name }.flatMap { String(validating: $0.bytes, as: UTF8.self) }
    }

    /// The bytes of `name`, or nil.
    func bytes(_ name: String) -> [UInt8]? { values.first { $0.name == name }?.bytes }

    /// `WebArc-URLs` (path → URL) of a webarc-made ZIM; empty when absent or not a JSON object of strings.
    var urlTable: [String: String] { json(ZimPaths.urlsMetadata) ?? [:] }

    /// `WebArc-Empty` (path → `Content-Type` of an empty response) of a webarc-made ZIM.
    var empties: [String: String] { json(ZimPaths.emptiesMetadata) ?? [:] }

    /// The JSON value of `name` as `T`, or nil when absent or of another shape.
    private func json<T>(_ name: String) -> T? {
        bytes(name).flatMap { try? JSONSerialization.jsonObject(with: Data($0)) as? T }
    }

    /// `WebArc-Copies` of a webarc-made ZIM: redirects that stand for responses with their target's body.
    var copies: Set<String> { Set(json(ZimPaths.copiesMetadata) ?? [String]()) }

    /// The archive metadata entries: `zim:NAME` for every value but webarc's own.
    var archiveEntries: [ArchiveMetadata.Entry] {
        values.filter { !$0.name.hasPrefix("WebArc-") }.map { value in
            let text = String(validating: value.bytes, as: UTF8.self)
            return ArchiveMetadata.Entry(
                Self.entryPrefix + value.name,
                value.mimeType == "text/plain"
                    ? text ?? "" : "data:\(value.mimeType);base64," + Data(value.bytes).base64EncodedString())
        }
    }

    /// Sets `name`, replacing a value of that name or appending one.
    mutating func set(_ name: String, _ bytes: [UInt8], mimeType: String = "text/plain") {
        if let index = values.firstIndex(where: { $0.name == name }) {
            values[index] = (name, bytes, mimeType)
        } else {
            values.append((name, bytes, mimeType))
        }
    }

    /// The metadata an export writes: the archive's `zim:` values with `options` over them, and
    /// for what neither gives, what every ZIM must hold (zimcheck's list): `Title` (the main
    /// page's title, else the file name), `Name`, `Creator`, `Publisher`, `Date` (today),
    /// `Description`, `Illustration_48x48@1` (a flat colour). `Scraper` names this webarc, and
    /// libzim's `Counter` and webarc's `WebArc-` values are left to the export.
    mutating func fillDefaults(
        options: ZimExportOptions, language: String, mainTitle: String?, archive: String, output: String,
        baseURL: String
    ) {
        values.removeAll { $0.name == "Counter" || $0.name.hasPrefix("WebArc-") }
        let stem = ((output as NSString).lastPathComponent as NSString).deletingPathExtension
        func fill(_ name: String, _ value: @autoclosure () -> String?, over given: String? = nil) {
            if let given {
                set(name, Array(given.utf8))
            } else if text(name) == nil, let value = value() {
                set(name, Array(value.utf8))
            }
        }
        fill("Title", mainTitle ?? stem, over: options.title)
        set("Language", Array(language.utf8))
        fill(
            "Description", "Exported by webarc from \((archive as NSString).lastPathComponent)",
            over: options.description)
        fill("Name", stem.lowercased().map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined())
        fill("Creator", URLComponents(string: baseURL)?.host ?? "webarc")
        fill("Publisher", "webarc")
        fill("Date", Self.day(options.date ?? Date()))
        fill("Source", baseURL)
        set("Scraper", Array(WebArcVersion.creator.utf8))
        if bytes("Illustration_48x48@1") == nil {
            set("Illustration_48x48@1", ZimIllustration.png(), mimeType: "image/png")
        }
    }

    /// `YYYY-MM-DD` in UTC, as the `Date` metadata is written.
    static func day(_ date: Date) -> String {
        let parts = Calendar(identifier: .gregorian).dateComponents(in: TimeZone(identifier: "UTC")!, from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
    }

    /// Whether a value is text: UTF-8 without NUL, and not an illustration.
    private static func isText(name: String, bytes: [UInt8]) -> Bool {
        !name.hasPrefix("Illustration_") && !bytes.contains(0) && String(validating: bytes, as: UTF8.self) != nil
    }

    /// The media type and bytes of a base64 `data:` URL.
    private static func decodeDataURL(_ value: String) -> (String, [UInt8])? {
        guard value.hasPrefix("data:"), let comma = value.firstIndex(of: ","),
            value[..<comma].hasSuffix(";base64"),
            let data = Data(base64Encoded: String(value[value.index(after: comma)...]))
        else { return nil }
        return (String(value.dropFirst(5).prefix { $0 != ";" && $0 != "," }), Array(data))
    }
}
