import Foundation
import WebArc
import WebArcInterop

/// The entries of a ZIM made by warc2zim 1.x, back at the URLs they were crawled from.
///
/// warc2zim 1.x stores each WARC response or resource twice: its payload (decoded by warcio) at
/// `A/URL-without-scheme` and its WARC header and HTTP header block at `H/URL-without-scheme`.
/// Every `A/` item becomes a response at its `H/` entry's `WARC-Target-URI`, with that entry's
/// status and headers (the body's codings and framing removed, as warcio removed them); an `H/`
/// entry with a 3xx and a `Location` becomes a redirect, one whose payload warc2zim left out for
/// being empty an empty response, and a revisit a response with the body it refers to. In HTML
/// pages the service-worker check warc2zim puts after `<head>` (and its optional custom CSS
/// link) is taken out again, giving the crawled payload back. warc2zim's replay files (`A/index.html`,
/// `A/sw.js`…) are left out.
struct Warc2zimMapping: ZimEntryMapping {
    /// warc2zim's replay files, which are no crawled content.
    static let replayFiles: Set<String> = ["A/index.html", "A/sw.js", "A/load.js", "A/topFrame.html", "A/404.html"]

    /// The `H/` entries read, by the path they share with their `A/` entry (without `A/`, `H/`).
    private var heads: [String: WARCHeaderBlock] = [:]
    /// The `H/` entries, in path order, by index.
    let headerEntries: Set<UInt32>
    private var headerOrder: [String] = []
    private var unreadable: [String] = []
    private let paths: ZimPaths

    /// Reads every `H/` entry when the ZIM says warc2zim 1.x made it (`Scraper`); nil otherwise.
    ///
    /// - Throws: ``ZimError`` when an `H/` entry cannot be read (unless `options.skipBad`); one
    ///   that does not parse is left out and listed.
    init?(
        _ zim: ZimArchive, metadata: ZimMetadata, headerEntries: [UInt32], paths: ZimPaths, options: ZimImportOptions
    ) throws {
        guard let scraper = metadata.text("Scraper"),
            scraper.hasPrefix("warc2zim 1.") || scraper.hasPrefix("warc2zim 0."),
            !headerEntries.isEmpty
        else { return nil }
        self.paths = paths
        self.headerEntries = Set(headerEntries)
        for index in headerEntries.sorted() {
            let entry = try zim.entry(index)
            let block: [UInt8]
            do {
                block = try zim.readItem(entry, maxSize: min(options.maxEntrySize, 1 << 20)) { Array($0) }
            } catch let error as ZimError where options.skipBad {
                unreadable.append("\(entry.path): \(error)")
                continue
            }
            let shared = String(entry.path.dropFirst(2))
            do {
                heads[shared] = try WARCHeaderBlock(parsing: block)
                headerOrder.append(shared)
            } catch {
                unreadable.append("\(entry.path): its WARC headers do not parse (\(error))")
            }
        }
    }

    func url(forPath path: String) -> String? {
        if path.hasPrefix("A/"), let head = heads[String(path.dropFirst(2))] { return head.targetURI }
        return Self.replayFiles.contains(path) || path.hasPrefix("H/") ? nil : paths.url(forPath: path)
    }

    func target(of entry: ZimArchive.Entry) -> ZimItemTarget {
        if Self.replayFiles.contains(entry.path) { return .leftOut("\(entry.path): warc2zim's replay file") }
        guard entry.path.hasPrefix("A/"), let head = heads[String(entry.path.dropFirst(2))] else {
            return .response(
                url: paths.url(forPath: entry.path), status: 200, reason: "OK",
                headers: [
                    HTTPHeader(
                        "Content-Type", PlainZimMapping.contentType(entry.mimeType ?? "application/octet-stream"))
                ],
                date: nil)
        }
        if Self.redirectTarget(head) != nil { return .elsewhere }
        return .response(
            url: head.targetURI, status: head.status ?? 200, reason: head.reason,
            headers: head.storedHeaders(length: entry.size), date: head.date)
    }

    func isCopy(_ path: String) -> Bool { false }

    func storedBody(of entry: ZimArchive.Entry, bytes: UnsafeRawBufferPointer) -> [UInt8]? {
        guard let type = entry.mimeType?.lowercased(),
            type.hasPrefix("text/html") || type.hasPrefix("application/xhtml")
        else { return nil }
        return Self.removingInserts(bytes)
    }

    func extraRecords(stored: (String) -> Bool) -> (records: [ZimExtraRecord], leftOut: [String]) {
        var records: [ZimExtraRecord] = []
        var leftOut = unreadable
        for shared in headerOrder {
            guard let head = heads[shared] else { continue }
            if let target = Self.redirectTarget(head) {
                records.append(
                    .redirect(
                        RedirectRecord(
                            request: RequestRecord(url: head.targetURI), status: head.status ?? 302, target: target,
                            headers: head.redirectHeaders,
                            captureDate: head.date)))
            } else if stored("A/" + shared) {
                continue
            } else if head.type == "revisit" {
                guard let original = head.refersToTargetURI.map({ "A/" + Self.shared($0) }), stored(original) else {
                    leftOut.append("H/\(shared): a revisit of a URL the ZIM does not hold")
                    continue
                }
                records.append(
                    .response(
                        url: head.targetURI, status: head.status ?? 200, reason: head.reason, headers: head.headers,
                        date: head.date,
                        bodyPath: original))
            } else {
                // warc2zim stores no payload item for an empty payload.
                records.append(
                    .response(
                        url: head.targetURI, status: head.status ?? 200, reason: head.reason,
                        headers: head.storedHeaders(length: 0),
                        date: head.date, bodyPath: nil))
            }
        }
        return (records, leftOut)
    }

    /// The absolute target of a 3xx with a `Location`, as a WARC import makes a redirect of it.
    static func redirectTarget(_ head: WARCHeaderBlock) -> String? {
        guard let status = head.status, RedirectRecord.allowedStatuses.contains(status),
            let location = head.headers.value(for: "Location")?.trimmingCharacters(in: .whitespaces), !location.isEmpty,
            let target = URL(string: location, relativeTo: URL(string: head.targetURI))?.absoluteString
        else { return nil }
        return target
    }

    /// A URL as warc2zim names its entries: without `http://` or `https://`.
    static func shared(_ url: String) -> String {
        if url.hasPrefix("https://") { return String(url.dropFirst(8)) }
        if url.hasPrefix("http://") { return String(url.dropFirst(7)) }
        return url
    }

    /// The `<script>` that opens `No SW Fallback check`, right after a `<head>`.
    private static let checkStart = Array("<head><script>\n// No SW Fallback check".utf8)
    private static let scriptEnd = Array("</script>".utf8)
    /// What `--custom-css` puts in place of `</head>`.
    private static let cssInsert = Array(
        "\n<link type=\"text/css\" href=\"https://warc2zim.kiwix.app/custom.css\" rel=\"Stylesheet\" />\n</head>".utf8)

    /// The page without warc2zim's inserts, or nil when it holds none.
    static func removingInserts(_ page: UnsafeRawBufferPointer) -> [UInt8]? {
        var result: [UInt8] = []
        var changed = false
        var start = 0
        var position = 0
        let bytes = Array(page)
        while position < bytes.count {
            if bytes[position] == UInt8(ascii: "<"), bytes[position...].starts(with: checkStart),
                let end = find(scriptEnd, in: bytes, from: position + checkStart.count)
            {
                result += bytes[start..<position] + Array("<head>".utf8)
                position = end + scriptEnd.count
                start = position
                changed = true
            } else if bytes[position] == 0x0A, bytes[position...].starts(with: cssInsert) {
                result += bytes[start..<position] + Array("</head>".utf8)
                position += cssInsert.count
                start = position
                changed = true
            } else {
                position += 1
            }
        }
        return changed ? result + bytes[start...] : nil
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        return (start...(bytes.count - needle.count)).first { bytes[$0...].starts(with: needle) }
    }
}
