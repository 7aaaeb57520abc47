/// Encodes one raw chunk the way a 2.0 writer does (spec §6.3, Appendix C step 13): LZ4 when that
/// is smaller, raw otherwise, with the SHA-256 of the raw bytes.
///
/// The level-1 block is tried first whatever the level: when it does not pay, the chunk is stored
/// raw and so are the body's later chunks (media and other compressed bodies cost one fast pass,
/// never an LZ4HC one); at levels 3–12 a chunk whose level-1 block pays is coded again with LZ4HC.
enum ChunkEncoder {
    /// One chunk ready to store.
    struct Encoded: @unchecked Sendable {
        var stored: [UInt8]
        var rawLength: Int
        var codec: ChunkEntry.Codec
        /// SHA-256 of the raw bytes.
        var digest: SHA256Hash
        /// The dictionary the chunk was tried against (whatever the codec stored).
        var triedDictionary: LZ4Dictionary?
        /// Stored raw untried, because an earlier chunk of its body was stored raw.
        var untried = false
        /// Its Zstandard coding, when tried ahead of the writer (spec Appendix C step 15): the
        /// history it was tried against and the frame, nil when the frame did not pay.
        var zstdAttempt: (history: [UInt8], frame: [UInt8]?)?

        /// For codec 2, the dictionary the block was coded against.
        var dictionary: LZ4Dictionary? { codec == .lz4Dictionary ? triedDictionary : nil }
    }

    /// The Zstandard frame of `raw` against `history` when step 15 stores it (spec Appendix C): a
    /// chunk whose other coding (`stored`) is not raw, a frame shorter than that coding and within
    /// the ratio bound of §10; nil otherwise.
    static func zstdFrame(
        _ raw: UnsafeRawBufferPointer, otherCoding chunk: Encoded, level: Int, history: [UInt8]
    ) -> [UInt8]? {
        guard chunk.codec != .raw else { return nil }
        let frame = history.withUnsafeBytes {
            ZstdDelta.encode(raw, reference: $0, shorterThan: chunk.stored.count, level: Int32(clamping: level))
        }
        guard let frame, UInt64(raw.count) <= FormatBounds.maxDecodeRatio * UInt64(frame.count) + UInt64(history.count)
        else {
            return nil
        }
        return frame
    }

    /// Encodes `raw`.
    ///
    /// - Parameters:
    ///   - dictionary: code against it (codec 2 when the block pays); nil for codec 1.
    ///   - storeRaw: an earlier chunk of the body was stored raw, so this one is too, untried.
    ///   - digest: the SHA-256 of `raw` when the caller has it already (a one-chunk body's hash).
    static func encode(
        _ raw: UnsafeRawBufferPointer, level: Int, dictionary: LZ4Dictionary? = nil, storeRaw: Bool = false,
        digest: SHA256Hash? = nil
    ) -> Encoded {
        let digest = digest ?? SHA256Hash.of(raw)
        func rawChunk() -> Encoded {
            Encoded(
                stored: Array(raw), rawLength: raw.count, codec: .raw, digest: digest, triedDictionary: dictionary,
                untried: storeRaw)
        }
        guard !storeRaw, raw.count > 0 else { return rawChunk() }
        // The block is written into a scratch buffer (not zeroed) and kept in an array of its own
        // size, not the bound's: a packer holds many blocks at once.
        func compress(_ level: Int) -> [UInt8]? {
            withUnsafeTemporaryAllocation(byteCount: LZ4.compressBound(raw.count), alignment: 16) { destination in
                let written =
                    dictionary.map { $0.compress(raw, into: destination, level: level) }
                    ?? LZ4.compress(raw, into: destination, level: level)
                guard let written, written < raw.count,
                    FormatBounds.ratioAllowed(stored: UInt32(written), raw: UInt32(raw.count))
                else {
                    return nil
                }
                return Array(UnsafeRawBufferPointer(rebasing: destination[..<written]))
            }
        }
        guard var output = compress(1) else { return rawChunk() }
        if level >= 3 {
            guard let better = compress(level) else { return rawChunk() }
            output = better
        }
        return Encoded(
            stored: output, rawLength: raw.count, codec: dictionary == nil ? .lz4 : .lz4Dictionary, digest: digest,
            triedDictionary: dictionary)
    }

    static func encode(
        _ raw: ArraySlice<UInt8>, level: Int, dictionary: LZ4Dictionary? = nil, storeRaw: Bool = false
    ) -> Encoded {
        raw.withUnsafeBytes { encode($0, level: level, dictionary: dictionary, storeRaw: storeRaw) }
    }

    /// The chunk entry for an encoded chunk stored at `offset`; a codec-2 chunk names
    /// `dictionaryReference`.
    static func entry(for chunk: Encoded, at offset: UInt64, dictionaryReference: ChunkEntry? = nil) -> ChunkEntry {
        ChunkEntry(
            offset: offset, storedLength: UInt32(chunk.stored.count), rawLength: UInt32(chunk.rawLength),
            codec: chunk.codec,
            digest: chunk.digest, dictionary: chunk.codec == .lz4Dictionary ? dictionaryReference : nil)
    }

    /// Decodes a chunk this writer stored (codec 0, 1 or 2 with `dictionary`), for comparing
    /// bodies with one MD5.
    static func decode(_ stored: [UInt8], entry: ChunkEntry, dictionary: [UInt8]? = nil) throws -> [UInt8] {
        if entry.codec == .raw { return stored }
        let decoded =
            entry.codec == .lz4Dictionary
            ? dictionary.flatMap { LZ4.decode(stored, rawLength: Int(entry.rawLength), dictionary: $0[...]) }
            : LZ4.decode(stored, rawLength: Int(entry.rawLength))
        guard let decoded else {
            throw WebArcError.corruptChunk(
                body: BodyReference(digest: BodyDigest.ofEmpty), chunk: 0, offset: entry.offset)
        }
        return decoded
    }

    /// Decodes an encoded chunk held in memory.
    static func decode(_ chunk: Encoded) throws -> [UInt8] {
        try decode(chunk.stored, entry: entry(for: chunk, at: 0), dictionary: chunk.dictionary?.bytes)
    }
}

extension ChunkEncoder.Encoded {
    /// Tries the Zstandard coding of step 15 against `history` and keeps the outcome for the
    /// writer, which uses it when its order gives this chunk the same history.
    mutating func tryZstd(_ raw: UnsafeRawBufferPointer, level: Int, history: [UInt8]) {
        zstdAttempt = (history, ChunkEncoder.zstdFrame(raw, otherCoding: self, level: level, history: history))
    }
}
