import WebArc

/// Choices for ``ZimImporter``.
public struct ZimImportOptions: Sendable {
    /// The URL entries are served under; nil: the base URL a webarc-made ZIM names
    /// (`WebArc-BaseURL`), else `http://localhost/` as `webarc pack`'s default.
    public var baseURL: String?
    /// Replace the output file if it exists.
    public var overwrite = false
    /// Skip entries libzim cannot read (listed in the summary) instead of failing.
    public var skipBad = false
    /// The most bytes one entry may hold: an entry is read whole into memory (libzim decompresses
    /// its cluster up to it), so a larger one fails the import before it is read (1 GiB by default).
    public var maxEntrySize: UInt64 = 1 << 30
    /// LZ4 level of the bodies (`ArchiveWriter.Options.compressionLevel`).
    public var compressionLevel = SitePacker.defaultLevel
    /// Zstandard level against anchors, or nil for LZ4 only (`ArchiveWriter.Options.zstdLevel`).
    public var zstdLevel: Int?
    /// Bodies per dictionary anchor (spec Appendix C step 13), as `pack`'s.
    public var dictionaryInterval = SitePacker.defaultDictionaryInterval
    /// Where a dictionary lies when a body is compressed against it.
    public var dictionaryPlacement: DictionaryPlacement = .prefix
    /// Group bodies of up to this many bytes into shared chunks of as many
    /// (`ArchiveWriter.Options.groups`), as ZIM's clusters do; nil: no groups.
    public var groups: Int?

    /// Makes options: base URL from the ZIM or `http://localhost/`, LZ4 level 1, nothing replaced.
    public init(baseURL: String? = nil, overwrite: Bool = false) {
        self.baseURL = baseURL
        self.overwrite = overwrite
    }

    /// The options of `--best`, as `pack --best`: bodies of up to 2 MiB in 2 MiB groups coded as
    /// Zstandard 19 frames, LZ4HC 12 for the rest.
    public mutating func useBest() {
        compressionLevel = SitePacker.bestLevel
        zstdLevel = SitePacker.bestZstdLevel
        groups = SitePacker.bestGroups
    }
}

/// What a ZIM import read and wrote.
public struct ZimImportSummary: Sendable {
    /// User entries read (items and redirects).
    public var entries = 0
    /// Responses written (one per item, and one at the base URL for the main page).
    public var responses = 0
    /// Redirects written.
    public var redirects = 0
    /// Entries left out on purpose, each with why (one line each).
    public var leftOut: [String] = []
    /// Entries skipped as unreadable (only with ``ZimImportOptions/skipBad``).
    public var skipped: [ZimError] = []
    /// Distinct bodies stored.
    public var bodiesStored = 0
    /// Uncompressed bytes of every body added, repeats included.
    public var rawBodyBytes: UInt64 = 0
    /// Bytes the body store takes after deduplication and compression.
    public var storedBodyBytes: UInt64 = 0
    /// The page the archive opens first.
    public var startURL: String?
    /// The URL entries were mapped under.
    public var baseURL = ""
    /// Whether the ZIM was made by warc2zim 1.x and its entries went back to their crawled URLs.
    public var fromWarc2zim = false
}
