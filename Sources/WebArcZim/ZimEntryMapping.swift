import Foundation
import WebArc

/// What one ZIM item becomes in an archive.
enum ZimItemTarget {
    /// A GET response at `url`.
    case response(url: String, status: Int, reason: String?, headers: [HTTPHeader], date: Date?)
    /// Nothing: the reason, for the summary.
    case leftOut(String)
    /// Nothing here: the entry's URL gets a record another way (warc2zim's redirects).
    case elsewhere
}

/// A record an import adds that is no ZIM item or redirect.
enum ZimExtraRecord {
    case redirect(RedirectRecord)
    /// A response whose body is that of the item at `bodyPath`, or empty when nil.
    case response(url: String, status: Int, reason: String?, headers: [HTTPHeader], date: Date?, bodyPath: String?)
}

/// Where a ZIM's entries go in an archive: ``PlainZimMapping`` (entries below a base URL) or
/// ``Warc2zimMapping`` (warc2zim 1.x entries back at their crawled URLs).
protocol ZimEntryMapping: Sendable {
    /// The URL an entry's path stands for, or nil when the entry is left out.
    func url(forPath path: String) -> String?
    /// What item `entry` (whose mime type is known) becomes.
    func target(of entry: ZimArchive.Entry) -> ZimItemTarget
    /// Whether the redirect at `path` stands for a response with its target's body.
    func isCopy(_ path: String) -> Bool
    /// The body to store for `entry` when it differs from the ZIM's bytes.
    func storedBody(of entry: ZimArchive.Entry, bytes: UnsafeRawBufferPointer) -> [UInt8]?
    /// Records an import adds that are no ZIM item or redirect (warc2zim's redirects and empty
    /// responses, kept as headers only), given which item paths were stored; and what was left out.
    func extraRecords(stored: (String) -> Bool) -> (records: [ZimExtraRecord], leftOut: [String])
}

/// Entries below a base URL: path `a/b.html` answers at BASE`a/b.html` with its ZIM mime type,
/// except where the ZIM's `WebArc-URLs` metadata names another URL.
struct PlainZimMapping: ZimEntryMapping {
    let paths: ZimPaths
    /// From a webarc-made ZIM: path → URL for the URLs ``ZimPaths/url(forPath:)`` does not give.
    let urls: [String: String]
    /// From a webarc-made ZIM: the redirects that stand for responses (`WebArc-Copies`).
    let copies: Set<String>
    /// From a webarc-made ZIM: path → `Content-Type` of the empty responses (`WebArc-Empty`).
    let empties: [String: String]
    /// Whether entries are named with a namespace (`A/…`, a ZIM of the old scheme), whose `M`
    /// (metadata), `X` and `Z` (indexes) namespaces are not content.
    let oldScheme: Bool

    func url(forPath path: String) -> String? {
        if oldScheme, let namespace = path.first, "MXZ".contains(namespace), path.dropFirst().first == "/" {
            return nil
        }
        return urls[path] ?? paths.url(forPath: path)
    }

    func target(of entry: ZimArchive.Entry) -> ZimItemTarget {
        guard let url = url(forPath: entry.path) else { return .leftOut("\(entry.path): an index or metadata entry") }
        let mimeType = entry.mimeType ?? "application/octet-stream"
        let type = Self.contentType(mimeType)
        return .response(
            url: url, status: 200, reason: "OK",
            headers: [HTTPHeader("Content-Type", type), HTTPHeader("Content-Length", String(entry.size))], date: nil)
    }

    func isCopy(_ path: String) -> Bool { copies.contains(path) }

    func storedBody(of entry: ZimArchive.Entry, bytes: UnsafeRawBufferPointer) -> [UInt8]? { nil }

    func extraRecords(stored: (String) -> Bool) -> (records: [ZimExtraRecord], leftOut: [String]) {
        let records = empties.sorted { $0.key < $1.key }.compactMap { path, type -> ZimExtraRecord? in
            guard let url = url(forPath: path) else { return nil }
            return .response(
                url: url, status: 200, reason: "OK",
                headers: [HTTPHeader("Content-Type", type), HTTPHeader("Content-Length", "0")],
                date: nil, bodyPath: nil)
        }
        return (records, [])
    }

    /// A ZIM mime type as a `Content-Type`: a text type without a charset gets `charset=utf-8`
    /// (ZIM text is UTF-8, and `webarc pack` labels text the same way).
    static func contentType(_ mimeType: String) -> String {
        let bare =
            mimeType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard MediaTypes.isText(bare), !mimeType.lowercased().contains("charset=") else { return mimeType }
        return "\(bare); charset=utf-8"
    }
}
