import Crypto
import Foundation
import WebArc
import WebArcHTML
import WebArcReplay

/// Writes an archive as a WACZ 1.1.1: a ZIP, every entry stored, of
///
/// ```
/// archive/data.warc.gz      the WARC export (WARC 1.1, a gzip member and SHA-1 digests per record), streamed in
/// indexes/index.cdxj        one line per response, revisit and resource record, sorted bytewise
/// pages/pages.jsonl         the start page, then every HTML page (GET 200 text/html) with its <title>
/// datapackage.json          each file above with its SHA-256 and size; the start page
/// datapackage-digest.json   the SHA-256 of datapackage.json
/// ```
///
/// Spec: WACZ 1.1.1; `Spec/interop.md` §12.2.
struct WACZExporter {
    /// The WARC's name in `archive/` (and in the index's `filename`).
    static let warcName = "data.warc.gz"
    /// How much of an HTML body is read for its `<title>`.
    static let titleWindow = 64 << 10

    let reader: ArchiveReader
    let options: ExportOptions
    /// Writes the WARC's local header with ZIP64 sizes whatever its size (a test of the ZIP64 path
    /// without 4 GiB of output).
    var forceZIP64 = false

    func write(to file: InteropOutputFile) throws -> ExportSummary {
        let date = options.date ?? Date()
        let zip = ZIPWriter(file: file, date: date)
        let metadata = try reader.metadata
        var entries: [ArchiveEntry] = []
        try reader.forEachEntry { entries.append($0) }

        try zip.beginEntry(
            "archive/" + Self.warcName,
            zip64: forceZIP64 || Self.warcSizeBound(entries, metadata: metadata) >= ZIPWriter.all32)
        let base = file.length
        var lines: [[UInt8]] = []
        let summary = try WARCExporter(reader: reader, options: options).write(to: file) { record in
            if let line = CDXJIndex.line(for: record, base: base, filename: Self.warcName) { lines.append(line) }
        }
        var written = [try zip.finishEntry()]
        written.append(try zip.add("indexes/index.cdxj", CDXJIndex.sorted(lines)))
        let pages = try self.pages(entries, metadata: metadata, undated: date)
        written.append(try zip.add("pages/pages.jsonl", WACZPage.serializeList(pages)))

        let start = metadata.startURL.flatMap { url in pages.first { $0.url == url } } ?? pages.first
        let package = WACZPackage(
            resources: written.map {
                WACZPackage.Resource(
                    name: ($0.name.split(separator: "/").last.map(String.init) ?? $0.name).lowercased(), path: $0.name,
                    hash: $0.sha256.description, bytes: $0.size)
            },
            title: metadata.entries.first { $0.key == "title" }?.value,
            description: metadata.entries.first { $0.key == "description" }?.value,
            created: ISODate.format(date), software: WebArcVersion.creator("export"), mainPageURL: start?.url,
            mainPageDate: start?.ts)
        let packageBytes = package.serialized()
        try zip.add("datapackage.json", packageBytes)
        let digest = WACZDigest(
            algorithm: .sha256,
            hex: SHA256.hash(data: packageBytes).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined())
        try zip.add(
            "datapackage-digest.json",
            WACZPackage.serialized(["path": "datapackage.json", "hash": digest.description], pretty: true))
        try zip.finish()
        return summary
    }

    /// The start page, then every GET 200 HTML response in key order, each with its title: the
    /// one a WACZ import kept (the `pages` metadata entry), else the page's `<title>`. A page without
    /// a capture date gets `undated`, as its WARC record does (WACZ requires a `ts`).
    private func pages(_ entries: [ArchiveEntry], metadata: ArchiveMetadata, undated: Date) throws -> [WACZPage] {
        var kept: [String: String] = [:]
        for entry in metadata.entries where entry.key == "pages" {
            for page in (try? WACZPage.parseList(Array(entry.value.utf8), name: "pages")) ?? [] {
                kept[page.url] = kept[page.url] ?? page.title
            }
        }
        var pages: [WACZPage] = []
        var seen = Set<String>()
        for entry in entries {
            guard case .response(let response) = entry.record, response.request.method == "GET", response.status == 200
            else { continue }
            let type = ContentTypeParts.of(response.headers.value(for: "Content-Type")).mimeType ?? response.mimeType
            guard type == "text/html" || type == "application/xhtml+xml", seen.insert(response.request.url).inserted
            else { continue }
            let title = try kept[response.request.url] ?? title(of: response)
            pages.append(
                WACZPage(
                    url: response.request.url, ts: ISODate.format(response.captureDate ?? undated), title: title,
                    id: Self.pageID(response.request.url)))
        }
        if let start = metadata.startURL, let index = pages.firstIndex(where: { $0.url == start }) {
            pages.insert(pages.remove(at: index), at: 0)
        } else if let start = metadata.startURL {
            pages.insert(
                WACZPage(url: start, ts: ISODate.format(undated), title: kept[start], id: Self.pageID(start)), at: 0)
        }
        return pages
    }

    /// The text of a page's first `<title>` in its first ``titleWindow`` bytes, entities decoded and
    /// white space collapsed; nil when there is none or the body is still content-coded.
    private func title(of response: ResponseRecord) throws -> String? {
        if let coding = response.headers.value(for: "Content-Encoding"), coding.lowercased() != "identity" {
            return nil
        }
        let length = min(response.bodyLength, UInt64(Self.titleWindow))
        guard length > 0 else { return nil }
        let bytes = [UInt8](try reader.body(response.body, range: 0..<length))
        for token in HTMLTokenizer(bytes) {
            guard case .rawText("title", let range) = token else { continue }
            let text = HTMLEntities.decode(String(decoding: bytes[range], as: UTF8.self))
            let words = text.split(whereSeparator: { $0.isWhitespace })
            return words.isEmpty ? nil : words.joined(separator: " ")
        }
        return nil
    }

    /// A stable page `id`: the first 16 hex digits of the URL's SHA-256.
    static func pageID(_ url: String) -> String {
        SHA256.hash(data: Array(url.utf8)).prefix(8).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// More bytes than the WARC export of `entries` can take: every body, every URL and header four
    /// times over (response and request, WARC and HTTP), 4 KiB of fields per record, plus what gzip can
    /// add to incompressible data (zlib's `deflateBound`: under 1/4096 and 18 bytes a member). Whether
    /// the WARC can reach 4 GiB must be known before its first byte: its local header says.
    static func warcSizeBound(_ entries: [ArchiveEntry], metadata: ArchiveMetadata) -> UInt64 {
        var raw: UInt64 = 1 << 20
        for entry in metadata.entries { raw += UInt64(entry.value.utf8.count) + 4096 }
        for entry in entries {
            let record = entry.record
            var headerBytes = UInt64(record.request.url.utf8.count)
            for header in record.headers + record.request.headers {
                headerBytes += UInt64(header.name.utf8.count + header.value.utf8.count + 4)
            }
            raw += 4 * headerBytes + 4096
            if case .response(let response) = record { raw += response.bodyLength }
        }
        return raw + raw / 1024
    }
}
