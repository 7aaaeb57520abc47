import Crypto
import Foundation
import Synchronization

extension ArchiveReader {
    /// The body table entry for `reference`, found by binary search (spec §5.3).
    ///
    /// - Throws: `bodyNotFound` when the archive does not hold it; `corruptIndex` when its chunk
    ///   range lies outside the chunk table.
    public func bodyEntry(_ reference: BodyReference) throws -> BodyEntry {
        guard let (entry, position) = try bodyTablePosition(of: reference) else { throw WebArcError.bodyNotFound(body: reference) }
        return try checked(entry, at: position)
    }

    /// The `BTAB` entry for `reference` and its position, by binary search over the digest order;
    /// nil when the table does not hold it.
    private func bodyTablePosition(of reference: BodyReference) throws -> (BodyEntry, Int)? {
        var low = 0
        var high = bodyTable.count
        while low < high {
            let middle = (low + high) / 2
            var reader = try bodyTable.entry(middle, from: source)
            let entry = try BodyEntry(parsing: &reader)
            if entry.reference == reference { return (entry, middle) }
            if entry.reference < reference { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    /// The absolute offset of the `BTAB` entry for `reference`, where errors about the body point.
    func bodyTableOffset(of reference: BodyReference) -> UInt64 {
        guard let (_, position) = try? bodyTablePosition(of: reference) else { return sections.bodyTable.offset }
        return bodyTable.offset(of: position)
    }

    /// The body table entry at position `index` (digest order).
    func bodyEntry(at index: Int) throws -> BodyEntry {
        var reader = try bodyTable.entry(index, from: source)
        return try checked(try BodyEntry(parsing: &reader), at: index)
    }

    private func checked(_ entry: BodyEntry, at index: Int) throws -> BodyEntry {
        let (end, overflow) = entry.firstChunk.addingReportingOverflow(UInt64(entry.chunkCount))
        guard !overflow, end <= UInt64(chunkTable.count) else {
            throw WebArcError.corruptIndex(
                section: "BTAB", offset: bodyTable.offset(of: index) + 32,
                reason: "body \(entry.reference) names chunks \(entry.firstChunk)..<\(end) of \(chunkTable.count)")
        }
        return entry
    }

    /// The chunk entries of a body, read in one positioned read.
    func chunkEntries(of body: BodyEntry) throws -> [(index: UInt64, entry: ChunkEntry)] {
        guard body.chunkCount > 0 else { return [] }
        let first = Int(body.firstChunk)
        let bytes = try chunkTable.read(first..<first + Int(body.chunkCount), from: source)
        return try (0..<Int(body.chunkCount)).map { position in
            var reader = ByteReader(
                Array(bytes[position * chunkTable.entrySize..<(position + 1) * chunkTable.entrySize]),
                baseOffset: chunkTable.offset(of: first + position), section: "CTAB")
            let entry = try ChunkEntry(parsing: &reader)
            try check(entry, index: UInt64(first + position))
            return (UInt64(first + position), entry)
        }
    }

    /// Checks a chunk entry's extent and lengths against spec §5.4.
    func check(_ entry: ChunkEntry, index: UInt64) throws {
        let data = sections.bodyData
        let offset = chunkTable.offset(of: Int(index))
        guard entry.lies(within: data) else {
            throw WebArcError.corruptIndex(section: "CTAB", offset: offset, reason: "chunk \(index) lies outside BDAT")
        }
        guard entry.rawLength >= 1, entry.rawLength <= UInt32(ChunkEntry.maxRawLength) else {
            throw WebArcError.corruptIndex(section: "CTAB", offset: offset + 12, reason: "chunk \(index) raw length \(entry.rawLength)")
        }
        switch entry.codec {
        case .raw where entry.storedLength != entry.rawLength:
            throw WebArcError.corruptIndex(section: "CTAB", offset: offset + 8, reason: "raw chunk \(index) stored length differs from raw")
        case .lz4 where Int(entry.storedLength) > LZ4.compressBound(Int(entry.rawLength)):
            throw WebArcError.corruptIndex(section: "CTAB", offset: offset + 8, reason: "LZ4 chunk \(index) exceeds the LZ4 bound")
        case nil:
            throw WebArcError.unsupportedCodec(codec: entry.codecValue, chunk: index, offset: offset + 16)
        default:
            break
        }
    }

    /// Reads and decodes one chunk.
    func decodeChunk(_ entry: ChunkEntry, index: UInt64) throws -> [UInt8] {
        try ChunkEncoder.decode(try source.read(at: entry.offset, count: Int(entry.storedLength)), entry: entry, index: index)
    }

    /// A pull-based iterator over a body's bytes (or a range of them), one chunk at a time.
    ///
    /// - Throws: `bodyNotFound`, `rangeOutOfBounds`, index errors.
    public func makeChunkIterator(for reference: BodyReference, range: Range<UInt64>? = nil) throws -> BodyChunkIterator {
        let body = try bodyEntry(reference)
        let range = range ?? 0..<body.length
        guard range.upperBound <= body.length else {
            throw WebArcError.rangeOutOfBounds(
                body: reference, lower: range.lowerBound, upper: range.upperBound, length: body.length)
        }
        return BodyChunkIterator(reader: self, chunks: try chunkEntries(of: body), range: range)
    }

    /// Calls `body` with successive pieces of a body (or of a byte range of it); memory holds
    /// one chunk at a time.
    public func forEachChunk(
        of reference: BodyReference, range: Range<UInt64>? = nil, _ body: ([UInt8]) throws -> Void
    ) throws {
        var iterator = try makeChunkIterator(for: reference, range: range)
        while let piece = try iterator.next() { try body(piece) }
    }

    /// A body (or a byte range of it) in memory.
    public func body(_ reference: BodyReference, range: Range<UInt64>? = nil) throws -> Data {
        var data = Data()
        try forEachChunk(of: reference, range: range) { data.append(contentsOf: $0) }
        return data
    }

    /// A body (or a byte range of it) as an asynchronous stream of chunks, read as the consumer pulls.
    public func chunks(of reference: BodyReference, range: Range<UInt64>? = nil) -> AsyncThrowingStream<Data, any Error> {
        let state = Mutex<Result<BodyChunkIterator, any Error>?>(nil)
        return AsyncThrowingStream(unfolding: { [self] in
            try state.withLock { state in
                if state == nil { state = Result { try self.makeChunkIterator(for: reference, range: range) } }
                var iterator = try state!.get()
                let next = try iterator.next()
                state = .success(iterator)
                return next.map { Data($0) }
            }
        })
    }

    /// Decodes a whole body and checks its MD5 and length against the body table (spec §8).
    ///
    /// - Throws: `bodyDigest` naming the body's `BTAB` entry on a mismatch, chunk errors when a
    ///   chunk does not decode.
    public func verifyBody(_ entry: BodyEntry) throws {
        var hasher = Insecure.MD5()
        var length: UInt64 = 0
        for (index, chunk) in try chunkEntries(of: entry) {
            let bytes = try decodeChunk(chunk, index: index)
            bytes.withUnsafeBytes { hasher.update(bufferPointer: $0) }
            length += UInt64(bytes.count)
        }
        guard length == entry.length else {
            throw WebArcError.bodyDigest(body: entry.reference, offset: bodyTableOffset(of: entry.reference), reason: "decodes to \(length) bytes, table says \(entry.length)")
        }
        let digest = BodyDigest(hasher.finalize())
        guard digest == entry.reference.digest else {
            throw WebArcError.bodyDigest(body: entry.reference, offset: bodyTableOffset(of: entry.reference), reason: "bytes hash to \(digest.hex)")
        }
    }
}

/// Yields a body's bytes chunk by chunk, trimmed to a range; holds one decoded chunk at a time.
public struct BodyChunkIterator: Sendable {
    let reader: ArchiveReader
    let chunks: [(index: UInt64, entry: ChunkEntry)]
    let range: Range<UInt64>
    var position = 0
    /// Body offset of the start of chunk `position`.
    var chunkStart: UInt64 = 0

    init(reader: ArchiveReader, chunks: [(index: UInt64, entry: ChunkEntry)], range: Range<UInt64>) {
        self.reader = reader
        self.chunks = chunks
        self.range = range
    }

    /// The next piece, or nil after the last.
    public mutating func next() throws -> [UInt8]? {
        while position < chunks.count {
            let (index, entry) = chunks[position]
            let start = chunkStart
            let end = start + UInt64(entry.rawLength)
            position += 1
            chunkStart = end
            if end <= range.lowerBound { continue }
            if start >= range.upperBound { return nil }
            let bytes = try reader.decodeChunk(entry, index: index)
            let lower = Int(max(range.lowerBound, start) - start)
            let upper = Int(min(range.upperBound, end) - start)
            return lower == 0 && upper == bytes.count ? bytes : Array(bytes[lower..<upper])
        }
        return nil
    }
}

extension ArchiveReader {
    /// The body table entry at position `index` in digest order, for listing every body.
    public func bodyEntry(atPosition index: Int) throws -> BodyEntry { try bodyEntry(at: index) }
}
