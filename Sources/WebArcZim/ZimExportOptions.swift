import Foundation

/// Choices for ``ZimExporter``: metadata the archive does not say, and the full-text index.
public struct ZimExportOptions: Sendable {
    /// Replace the output file if it exists.
    public var overwrite = false
    /// The URL the ZIM's paths are relative to; nil: the archive's base URL, else its start URL's
    /// origin, else the origin most records share.
    public var baseURL: String?
    /// `Title`; nil: the archive's `zim:Title`, else the main page's `<title>`, else the file name.
    public var title: String?
    /// `Language` (ISO 639-3, such as `eng`); nil: the archive's `zim:Language`, else `eng`.
    public var language: String?
    /// `Description`; nil: the archive's `zim:Description`, else one naming the archive.
    public var description: String?
    /// The day written as `Date` when the archive names none; today when nil.
    public var date: Date?
    /// Build libzim's Xapian full-text index of the HTML pages (Kiwix's search), in `Language`.
    public var fullTextIndex = true

    /// Makes options.
    public init(overwrite: Bool = false) {
        self.overwrite = overwrite
    }
}

/// What a ZIM export wrote.
public struct ZimExportSummary: Sendable {
    /// Items written (one per exported response).
    public var items = 0
    /// Redirect entries written.
    public var redirects = 0
    /// Records left out, each with why (one line each).
    public var leftOut: [String] = []
    /// Responses written with a status other than 200, which a ZIM entry cannot hold.
    public var statusesDropped = 0
    /// The main page's path.
    public var mainPath: String?
    /// The URL paths are relative to.
    public var baseURL = ""
    /// Entries whose URL is listed in `WebArc-URLs` (not the base URL plus their path).
    public var listedURLs = 0
    /// Bytes of the ZIM file.
    public var bytes: UInt64 = 0
}
