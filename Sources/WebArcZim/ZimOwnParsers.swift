import Foundation
import WebArc
import WebArcInterop

/// The parsers of ZIM input that are webarc's own, run on bytes without libzim: for the `FuzzZim`
/// fuzz target, which cannot run libzim (a crash in it, which no `catch` stops, would end the
/// target; `webarc` runs libzim in the `webarc-zim` child process for that reason).
@_spi(Fuzzing) public enum ZimOwnParsers {
    /// Checks the file at `path` as an import does before libzim opens it (``ZimHeader`` parsed
    /// and validated, every cluster's first blob offset), then decodes every uncompressed and
    /// Zstandard cluster of at most `limit` bytes as the import's cluster reader does (a
    /// cluster whole, its blob offsets), the first `maxClusters` of them, giving `blob` each blob.
    ///
    /// - Throws: ``ZimError`` as ``ZimArchive/init(path:)`` throws it before libzim, and `libzim`
    ///   for a cluster whose frame or blob offsets are not what they must be.
    public static func readClusters(
        path: String, limit: UInt64, maxClusters: UInt32 = .max, blob: (ArraySlice<UInt8>) -> Void
    ) throws {
        let (header, _) = try ZimArchive.checkedHeader(path)
        try ZimClusterReader.checkClusters(path: path, header: header)
        let reader = try ZimClusterReader(path: path, header: header, limit: limit)
        for index in 0..<min(header.clusterCount, maxClusters) {
            try reader.blobs(ofCluster: index)?.forEach(blob)
        }
    }

    /// What an import makes of a warc2zim `H/` entry (``Warc2zimMapping``).
    public struct Warc2zimHead: Sendable {
        /// The `WARC-Target-URI`: the URL the item goes back to.
        public var url: String
        /// The HTTP status, when the block has a status line.
        public var status: Int?
        /// The headers stored with its payload of the given length.
        public var storedHeaders: [HTTPHeader]
        /// The absolute target when it becomes a redirect.
        public var redirectTarget: String?
        /// The headers the redirect keeps.
        public var redirectHeaders: [HTTPHeader]
        /// The entry name its `A/` item has: the URL without `http://` or `https://`.
        public var sharedPath: String
    }

    /// Parses `bytes` as a warc2zim `H/` entry (its WARC header, then its HTTP header block) and
    /// maps it as an import does for a payload of `payloadLength` bytes; nil when it does not parse.
    public static func warc2zimHead(_ bytes: [UInt8], payloadLength: UInt64) -> Warc2zimHead? {
        guard let head = try? WARCHeaderBlock(parsing: bytes) else { return nil }
        return Warc2zimHead(
            url: head.targetURI, status: head.status, storedHeaders: head.storedHeaders(length: payloadLength),
            redirectTarget: Warc2zimMapping.redirectTarget(head), redirectHeaders: head.redirectHeaders,
            sharedPath: Warc2zimMapping.shared(head.targetURI))
    }

    /// An HTML page without the inserts warc2zim puts in it, or nil when it holds none.
    public static func removingWarc2zimInserts(_ page: [UInt8]) -> [UInt8]? {
        page.withUnsafeBytes { Warc2zimMapping.removingInserts($0) }
    }
}
