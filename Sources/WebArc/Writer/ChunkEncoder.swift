/// Encodes one raw chunk the way a 2.0 writer does: LZ4 when that is smaller, raw otherwise, with
/// the SHA-256 of the raw bytes.
///
/// Spec: §6.3, "A 2.0 writer splits a body…".
enum ChunkEncoder {
    /// One chunk ready to store.
    struct Encoded: Sendable {
        var stored: [UInt8]
        var rawLength: Int
        var codec: ChunkEntry.Codec
        /// SHA-256 of the raw bytes.
        var digest: SHA256Hash
    }

    static func encode(_ raw: UnsafeRawBufferPointer, level: Int) -> Encoded {
        let digest = SHA256Hash.of(raw)
        if let compressed = LZ4.compressedIfSmaller(raw, level: level),
            FormatBounds.ratioAllowed(stored: UInt32(compressed.count), raw: UInt32(raw.count))
        {
            return Encoded(stored: compressed, rawLength: raw.count, codec: .lz4, digest: digest)
        }
        return Encoded(stored: Array(raw), rawLength: raw.count, codec: .raw, digest: digest)
    }

    static func encode(_ raw: ArraySlice<UInt8>, level: Int) -> Encoded {
        raw.withUnsafeBytes { encode($0, level: level) }
    }

    /// The chunk entry for an encoded chunk stored at `offset`.
    static func entry(for chunk: Encoded, at offset: UInt64) -> ChunkEntry {
        ChunkEntry(
            offset: offset, storedLength: UInt32(chunk.stored.count), rawLength: UInt32(chunk.rawLength), codec: chunk.codec,
            digest: chunk.digest)
    }

    /// Decodes a chunk this writer stored (codec 0 or 1), for comparing bodies with one MD5.
    static func decode(_ stored: [UInt8], entry: ChunkEntry) throws -> [UInt8] {
        if entry.codec == .raw { return stored }
        guard let raw = LZ4.decode(stored, rawLength: Int(entry.rawLength)) else {
            throw WebArcError.corruptChunk(body: BodyReference(digest: BodyDigest.ofEmpty), chunk: 0, offset: entry.offset)
        }
        return raw
    }
}
