import Foundation

/// The formats `webarc export` writes.
public enum ExportFormat: String, CaseIterable, Sendable {
    /// WARC 1.1, one gzip member per record.
    case warc
    /// HAR 1.2 JSON.
    case har
    /// A Safari `.webarchive` of one page and its subresources.
    case webarchive
    /// WACZ 1.1.1: a stored ZIP of the WARC export, a CDXJ index, a page list and a manifest.
    case wacz
    /// A ZIM file (Kiwix), which WebArcZim writes through libzim, not ``ArchiveExporter``
    /// (`webarc export` runs `webarc-zim` for it).
    case zim
}

/// Choices for ``ArchiveExporter``.
public struct ExportOptions: Sendable {
    /// Replace the output file if it exists.
    public var overwrite: Bool
    /// The page a `.webarchive` holds; the archive's start URL when nil.
    public var page: String?
    /// The date written for records that have no capture date, and for the warcinfo record;
    /// now when nil. Give one to make output byte-for-byte reproducible.
    public var date: Date?

    /// Makes options.
    public init(overwrite: Bool = false, page: String? = nil, date: Date? = nil) {
        self.overwrite = overwrite
        self.page = page
        self.date = date
    }
}

/// What an export wrote.
public struct ExportSummary: Sendable {
    /// Responses written in full (WARC `response` or `resource`, HAR entries, web archive resources).
    public var responses = 0
    /// Redirects written.
    public var redirects = 0
    /// WARC `revisit` records written for bodies already written once.
    public var revisits = 0
    /// WARC `request` records written.
    public var requests = 0
    /// Bytes of the output file.
    public var bytes: UInt64 = 0
    /// Records left out, with why.
    public var notes: [InteropNote] = []
}
