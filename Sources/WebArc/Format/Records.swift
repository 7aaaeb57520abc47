import Foundation

/// One HTTP header field, name and value as captured.
public struct HTTPHeader: Equatable, Hashable, Sendable {
    public var name: String
    public var value: String

    /// Makes a header field.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

extension Array where Element == HTTPHeader {
    /// The value of the first header named `name`, compared case-insensitively.
    public func value(for name: String) -> String? {
        first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// Names and values alternately, as objects store them (spec §7.2).
    var flattened: [String] { flatMap { [$0.name, $0.value] } }

    init(flattened list: [String]) {
        self = stride(from: 0, to: list.count - 1, by: 2).map { HTTPHeader(list[$0], list[$0 + 1]) }
    }
}

/// A captured HTTP request: what a response, redirect or tombstone answers.
///
/// Spec: §7.3 `Request`.
public struct RequestRecord: Equatable, Sendable {
    /// The method, upper case.
    public var method: String
    /// The absolute URL as captured, not canonicalized.
    public var url: String
    public var headers: [HTTPHeader]

    /// Makes a request record.
    public init(method: String = "GET", url: String, headers: [HTTPHeader] = []) {
        self.method = URLKey.asciiUppercased(method)
        self.url = url
        self.headers = headers
    }

    /// The lookup key: method, a space, and the canonical URL (spec §9).
    ///
    /// - Throws: ``WebArcError/badURL(url:reason:)`` when the URL is not absolute.
    public func canonicalKey() throws -> String { try URLKey.key(method: method, url: url) }
}

/// A stored HTTP response with its body reference.
///
/// Spec: §7.3 `Response`.
public struct ResponseRecord: Equatable, Sendable {
    public var request: RequestRecord
    public var status: Int
    public var reason: String?
    /// Headers as stored: they describe the stored body (no `Transfer-Encoding`).
    public var headers: [HTTPHeader]
    /// Media type without parameters, lower case.
    public var mimeType: String?
    public var textEncoding: String?
    public var body: BodyReference
    public var bodyLength: UInt64
    public var captureDate: Date?

    /// Makes a response record for a body already added to a writer.
    public init(
        request: RequestRecord, status: Int = 200, reason: String? = nil, headers: [HTTPHeader] = [],
        mimeType: String? = nil, textEncoding: String? = nil, body: StoredBody, captureDate: Date? = nil
    ) {
        self.init(
            request: request, status: status, reason: reason, headers: headers, mimeType: mimeType,
            textEncoding: textEncoding, body: body.reference, bodyLength: body.length, captureDate: captureDate)
    }

    /// Makes a response record from all its stored fields.
    public init(
        request: RequestRecord, status: Int, reason: String?, headers: [HTTPHeader], mimeType: String?,
        textEncoding: String?, body: BodyReference, bodyLength: UInt64, captureDate: Date?
    ) {
        self.request = request
        self.status = status
        self.reason = reason
        self.headers = headers
        self.mimeType = mimeType
        self.textEncoding = textEncoding
        self.body = body
        self.bodyLength = bodyLength
        self.captureDate = captureDate
    }
}

/// A stored HTTP redirect: the request it answers and where it points.
///
/// Spec: §7.3 `Redirect`.
public struct RedirectRecord: Equatable, Sendable {
    /// The statuses a redirect record may hold.
    public static let allowedStatuses: Set<Int> = [301, 302, 303, 307, 308]

    public var request: RequestRecord
    /// 301, 302, 303, 307 or 308.
    public var status: Int
    /// The absolute target URL.
    public var target: String
    public var headers: [HTTPHeader]
    public var captureDate: Date?

    /// Makes a redirect record.
    public init(
        request: RequestRecord, status: Int = 301, target: String, headers: [HTTPHeader] = [],
        captureDate: Date? = nil
    ) {
        self.request = request
        self.status = status
        self.target = target
        self.headers = headers
        self.captureDate = captureDate
    }
}

/// An update archive's deletion of a URL: a lookup that meets it answers "not found" and does not
/// go on to the base (spec §13). Only archives with required feature bit 0 hold tombstones.
///
/// Spec: §7.3 `Tombstone`.
public struct TombstoneRecord: Equatable, Sendable {
    /// The request whose URL the update deletes.
    public var request: RequestRecord
    /// When the deletion was decided.
    public var captureDate: Date?

    /// Makes a tombstone.
    public init(request: RequestRecord, captureDate: Date? = nil) {
        self.request = request
        self.captureDate = captureDate
    }
}

/// A record found by a lookup: a response, a redirect, or (in an update archive) a tombstone.
public enum ArchiveRecord: Equatable, Sendable {
    case response(ResponseRecord)
    case redirect(RedirectRecord)
    /// The URL is deleted by this update archive: it answers "not found".
    case tombstone(TombstoneRecord)

    /// The request the record answers.
    public var request: RequestRecord {
        switch self {
        case .response(let response): response.request
        case .redirect(let redirect): redirect.request
        case .tombstone(let tombstone): tombstone.request
        }
    }

    /// Whether this is a tombstone: the URL is deleted and a lookup answers "not found".
    public var isTombstone: Bool {
        if case .tombstone = self { return true }
        return false
    }

    /// The HTTP status stored; 0 for a tombstone, which answers nothing.
    public var status: Int {
        switch self {
        case .response(let response): response.status
        case .redirect(let redirect): redirect.status
        case .tombstone: 0
        }
    }

    /// The stored response headers (none for a tombstone).
    public var headers: [HTTPHeader] {
        switch self {
        case .response(let response): response.headers
        case .redirect(let redirect): redirect.headers
        case .tombstone: []
        }
    }

    /// When the record was captured, if known.
    public var captureDate: Date? {
        switch self {
        case .response(let response): response.captureDate
        case .redirect(let redirect): redirect.captureDate
        case .tombstone(let tombstone): tombstone.captureDate
        }
    }
}

/// Where a record is stored: its record leaf and its entry there.
///
/// Locations order as the writer stores records: leaves in key order, entries in leaf order.
package struct RecordLocation: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Offset of the record leaf page.
    package var page: UInt64
    /// The entry's index in the leaf.
    package var entry: Int

    /// Makes a location.
    package init(page: UInt64, entry: Int) {
        self.page = page
        self.entry = entry
    }

    package var description: String { "page \(page) entry \(entry)" }

    package static func < (lhs: RecordLocation, rhs: RecordLocation) -> Bool {
        (lhs.page, lhs.entry) < (rhs.page, rhs.entry)
    }
}

/// A record with its key and place in the archive, as lookups and listings return it.
public struct ArchiveEntry: Equatable, Sendable {
    /// The canonical key the record tree holds for it.
    public var key: String
    /// Where the record is stored.
    package var location: RecordLocation
    /// The record decoded.
    public var record: ArchiveRecord
    /// A response's body entry, from the record's own leaf: the chunks its body is read from,
    /// with no other lookup; nil for redirects and tombstones.
    public var body: BodyEntry?

    /// Makes an entry.
    package init(key: String, location: RecordLocation, record: ArchiveRecord, body: BodyEntry? = nil) {
        self.key = key
        self.location = location
        self.record = record
        self.body = body
    }
}

/// A base an update archive is stacked over, named by its archive digest.
///
/// Spec: §7.3 `Base`, §13.
public struct BaseArchive: Equatable, Sendable {
    /// The base's archive digest (SHA-256 of its trailer), 32 bytes.
    public var digest: [UInt8]
    /// The base's `archiveLength`.
    public var archiveLength: UInt64
    /// A file name hint, e.g. `site-2026-11.webarc`.
    public var name: String?

    /// Makes a base entry.
    public init(digest: [UInt8], archiveLength: UInt64, name: String? = nil) {
        self.digest = digest
        self.archiveLength = archiveLength
        self.name = name
    }

    /// The file name hint for a base read from `location`: a path's last component, or the last
    /// segment of a URL's path, percent-decoded, without its query or fragment. The same base
    /// gets the same name from a file and from the CDN, and a presigned URL's credentials
    /// (`?X-Amz-Signature=…`) never end up in an update.
    public static func nameHint(location: String) -> String? {
        let lowered = location.prefix(8).lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            return location.split(separator: "/").last.map(String.init)
        }
        let afterAuthority =
            location.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false).dropFirst(3).first ?? ""
        let path = afterAuthority.prefix { $0 != "?" && $0 != "#" }
        guard let segment = path.split(separator: "/").last else { return nil }
        return String(segment).removingPercentEncoding ?? String(segment)
    }
}

/// Archive-level metadata: the metadata page's `Archive` object.
///
/// Spec: §5.4, §7.3 `Archive`.
public struct ArchiveMetadata: Equatable, Sendable {
    /// One free-form key/value pair.
    public struct Entry: Equatable, Sendable {
        public var key: String
        public var value: String

        /// Makes an entry.
        public init(_ key: String, _ value: String) {
            self.key = key
            self.value = value
        }
    }

    /// When the archive was made; absent unless given, so that output stays deterministic.
    public var created: Date?
    public var creator: String?
    /// The page to open first.
    public var startURL: String?
    public var baseURL: String?
    public var entries: [Entry]
    /// For an update archive: its bases, nearest first (spec §13). Non-empty sets feature bit 0.
    public var bases: [BaseArchive]
    /// How the writer made the archive (spec §7.3 `Writer`); a writer sets it when it finishes,
    /// whatever the caller gave. Nil in archives written before 2.1.
    public var writer: WriterRecipe?
    /// For an update made by a diff: what applying it gives (spec §13.1).
    public var target: UpdateTarget?
    /// The root page of the archive's full-text index of version 1 (`Archive.search`, spec §17),
    /// set by the writer that wrote it.
    package var searchIndex: PageReference?
    /// The root page of its full-text index of version 2 (`Archive.searchIndex`, spec §17; since
    /// 2.3), set by the writer that wrote it. A 2.2 reader does not know the key: no index.
    package var searchIndexV2: PageReference?
    /// The root page of its full-text index of version 3 (`Archive.searchIndex3`, spec §17; since
    /// 2.5), set by the writer that wrote it. A 2.4 reader does not know the key: no index.
    package var searchIndexV3: PageReference?
    /// The root page of its full-text index of version 4 (`Archive.searchIndex4`, spec §17; since
    /// 2.6), set by the writer that wrote it. A 2.5 reader does not know the key: no index.
    package var searchIndexV4: PageReference?
    /// The counts and sums of the archive's records and bodies (spec §7.3 `Totals`), set by the
    /// writer that wrote it; nil in archives written before 2.2.2.
    public var totals: ArchiveTotals?

    /// Makes metadata; every field is optional.
    public init(
        created: Date? = nil, creator: String? = nil, startURL: String? = nil, baseURL: String? = nil,
        entries: [Entry] = [], bases: [BaseArchive] = [], writer: WriterRecipe? = nil, target: UpdateTarget? = nil
    ) {
        self.created = created
        self.creator = creator
        self.startURL = startURL
        self.baseURL = baseURL
        self.entries = entries
        self.bases = bases
        self.writer = writer
        self.target = target
    }
}

/// A body the writer stored: its reference and length, to put in a response record.
public struct StoredBody: Equatable, Sendable {
    public var reference: BodyReference
    public var length: UInt64
    /// Whether this add found the body already stored.
    public var wasDeduplicated: Bool
}

extension Date {
    /// Milliseconds since 1970, as dates are stored (spec §7.1 type `date`).
    var webarcMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    init(webarcMilliseconds: Int64) { self.init(timeIntervalSince1970: Double(webarcMilliseconds) / 1000) }
}
