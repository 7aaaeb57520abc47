/// The bounds every size a file declares is checked against before anything is allocated or decoded.
///
/// Spec: §10 Bounds.
package enum FormatBounds {
    /// The largest page, stored or decoded (`corrupt-page` beyond).
    package static let maxPageLength: UInt32 = 4_194_304
    /// The largest decoded chunk (`corrupt-index` beyond).
    package static let maxChunkLength: UInt32 = 262_144
    /// The largest decoded group chunk, the one chunk of sliced bodies (`corrupt-index` beyond).
    package static let maxGroupLength: UInt32 = 2_097_152
    /// The largest ratio of decoded to stored bytes of an LZ4 chunk or page (`amplification` beyond).
    package static let maxDecodeRatio: UInt64 = 255
    /// The longest body (`corrupt-index` beyond).
    package static let maxBodyLength: UInt64 = 1 << 40
    /// The most chunks in one body (`corrupt-index` beyond).
    package static let maxBodyChunks: UInt32 = 1 << 22
    /// The most records or bodies a trailer may count (`bad-trailer` beyond).
    package static let maxCount: UInt64 = 1 << 40
    /// The greatest tree `height` (`corrupt-page` beyond).
    package static let maxTreeHeight: UInt8 = 8
    /// How many levels of objects a record or the metadata object may hold, itself included
    /// (`corrupt-index` beyond): a `Response` (1) nesting a `Request` (2) uses two.
    package static let maxObjectNesting = 4
    /// The longest appendix (`bad-appendix` beyond).
    package static let maxAppendixLength: UInt64 = 1_048_576

    /// The most stored bytes an LZ4 block of `rawLength` decoded bytes may take (spec §5.1, §6.2).
    static func maxLZ4StoredLength(rawLength: UInt32) -> UInt64 {
        UInt64(rawLength) + UInt64(rawLength) / 255 + 16
    }

    /// Whether `rawLength` decoded bytes from `storedLength` stored ones stays within the ratio.
    static func ratioAllowed(stored: UInt32, raw: UInt32) -> Bool {
        UInt64(raw) <= maxDecodeRatio * UInt64(stored)
    }
}
