import WebArc

/// What an import read, kept, skipped and stored.
public struct ImportSummary: Sendable {
    /// One input file.
    public struct Input: Sendable {
        /// The path as given.
        public var path: String
        /// The kind detected from its content.
        public var format: InputFormat
        /// WARC records, HAR entries or `.webarchive` resources read.
        public var records: Int
        /// Captures (responses and redirects) the input yielded, before the duplicates rule.
        public var captures: Int
    }

    /// Every input, in the order given.
    public var inputs: [Input] = []
    /// Responses written to the archive.
    public var responses = 0
    /// Redirects written to the archive.
    public var redirects = 0
    /// Captures left out by the duplicates rule.
    public var duplicatesDropped = 0
    /// Bad records skipped (only with `--skip-bad`; otherwise the first one fails the import).
    public var skipped: [InteropError] = []
    /// Everything reported without failing.
    public var notes: [InteropNote] = []
    /// Bodies the responses reference, one per response, repeats included.
    public var bodiesReferenced = 0
    /// Distinct bodies stored.
    public var bodiesStored = 0
    /// Uncompressed bytes of every body the responses reference, repeats included.
    public var rawBodyBytes: UInt64 = 0
    /// Uncompressed bytes of the distinct bodies.
    public var distinctBodyBytes: UInt64 = 0
    /// Bytes the body store takes after deduplication and LZ4.
    public var storedBodyBytes: UInt64 = 0
    /// The page the archive opens first, when one was found.
    public var startURL: String?

    /// Records written.
    public var records: Int { responses + redirects }

    /// ``rawBodyBytes`` divided by ``distinctBodyBytes``, as every command
    /// computes it (1 when nothing repeats).
    public var dedupRatio: Double { DedupRatio.value(rawBytes: rawBodyBytes, distinctBytes: distinctBodyBytes) }
}
