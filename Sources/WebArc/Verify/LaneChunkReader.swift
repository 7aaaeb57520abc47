/// A lane's decoded chunk, in a buffer the lane keeps from chunk to chunk, with room right before
/// it for a codec-2 dictionary (so that liblz4 decodes in prefix mode, ``PrefixArenas``).
///
/// ```
/// base                          output
/// |<- dictionary room (64 KiB) ->|<- outputRoom: a chunk and a block carried over ->|
///              [ dictionary bytes][ decoded chunk ...
/// ```
final class LaneBuffer {
    let base: UnsafeMutableRawPointer
    /// Bytes from ``output`` on.
    let outputRoom: Int
    /// The dictionary now right before ``output`` and its length, nil when there is none: chunks
    /// decoded at ``output`` leave it in place, so neighbours coded against it need no copy.
    var prefix: (entry: ChunkEntry, length: Int)?

    /// The output room of a buffer for any chunk: the largest, plus the bytes short of a block a
    /// lane carries over after a short chunk.
    static let largestRoom = ChunkEntry.maxRawLength + MD5Lanes.blockSize
    /// The output room of the buffer each lane keeps: most chunks of a site are pages, far
    /// shorter, and a lane that kept room for the largest would hold its pages once it had one.
    static let smallRoom = (64 << 10) + MD5Lanes.blockSize

    init(outputRoom: Int) {
        self.outputRoom = outputRoom
        base = .allocate(byteCount: PrefixArenas.dictionaryRoom + outputRoom, alignment: 64)
    }

    deinit { base.deallocate() }

    /// Where a chunk is decoded; its dictionary, if any, ends here.
    var output: UnsafeMutableRawPointer { base + PrefixArenas.dictionaryRoom }
}

/// Reads and decodes chunks for one worker of ``BodyLaneChecker`` into its lanes' buffers, with
/// the same checks and errors as ``ArchiveReader/decodeChunkLeavingDigest(_:index:)``.
///
/// From a local file, small chunks are read a window at a time (``windowSize`` bytes from the first
/// one missing): the workers take runs of neighbouring bodies, so one read serves many chunks
/// where a read per chunk cost a system call and an array each. A larger chunk is read on its own
/// into a reused buffer. The dictionary of codec 2 last used is kept at hand (the reader's cache
/// is shared by the workers and locked). Other sources, codecs and layers go through the reader.
/// Memory: the window and one largest chunk, whatever the archive's size.
final class LaneChunkReader {
    let reader: ArchiveReader
    private let file: FileByteSource?
    private let window: UnsafeMutableRawPointer
    /// The file bytes `window` holds.
    private var windowRange: Range<UInt64> = 0..<0
    /// A chunk read on its own.
    private var single = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var dictionary: (entry: ChunkEntry, bytes: [UInt8])?

    /// Bytes read at a time for small chunks.
    static let windowSize = 256 << 10
    /// Chunks stored in more bytes than this are read on their own: one read per chunk costs
    /// little beside copying that many, and a window from there would copy bytes read already.
    static let windowedChunk = 64 << 10

    init(reader: ArchiveReader) {
        self.reader = reader
        file = reader.source as? FileByteSource
        window = .allocate(byteCount: Self.windowSize, alignment: 64)
    }

    deinit {
        window.deallocate()
        single.deallocate()
    }

    /// Decodes chunk `index` of `body` (not a slice) at `buffer`'s output, leaving its SHA-256 to
    /// the caller, and returns its length.
    ///
    /// - Throws: as ``ArchiveReader/decodeChunkLeavingDigest(_:index:)``.
    func decode(_ body: BodyEntry, index: Int, into buffer: LaneBuffer, readingUpTo readLimit: UInt64) throws -> Int {
        let chunk = body.chunks[index]
        guard chunk.layer == 0, let file, let codec = chunk.codec,
            codec == .raw || codec == .lz4 || codec == .lz4Dictionary
        else {
            let bytes = try reader.decodeChunkLeavingDigest(body, index: index)
            UnsafeMutableRawBufferPointer(start: buffer.output, count: bytes.count).copyBytes(from: bytes)
            return bytes.count
        }
        let context = ChunkContext(
            body: body.reference, index: index, page: body.origin.page, position: body.origin.position)
        try chunk.validate(context, bodyDataEnd: reader.trailer.bodyDataEnd)
        let stored = try storedBytes(chunk, file, readingUpTo: readLimit)
        let rawLength = Int(chunk.rawLength)
        switch codec {
        case .raw:
            buffer.output.copyMemory(from: stored.baseAddress!, byteCount: stored.count)
            return stored.count
        case .lz4Dictionary:
            let reference = chunk.dictionary!
            if buffer.prefix?.entry != reference {
                let bytes: [UInt8]
                if let kept = dictionary, kept.entry == reference {
                    bytes = kept.bytes
                } else {
                    bytes = try reader.dictionaryBytes(reference, context)
                    dictionary = (reference, bytes)
                }
                UnsafeMutableRawBufferPointer(start: buffer.output - bytes.count, count: bytes.count).copyBytes(
                    from: bytes)
                buffer.prefix = (reference, bytes.count)
            }
            guard LZ4.decode(stored, into: buffer.output, rawLength: rawLength, prefixLength: buffer.prefix!.length)
            else { throw WebArcError.corruptChunk(body: context.body, chunk: index, offset: chunk.offset) }
        default:
            guard LZ4.decode(stored, into: buffer.output, rawLength: rawLength) else {
                throw WebArcError.corruptChunk(body: context.body, chunk: index, offset: chunk.offset)
            }
        }
        return rawLength
    }

    /// The stored bytes of a chunk whose extent is checked to lie in the body data, valid until
    /// the next call; a window read for it ends at `readLimit` (or its own end, if further).
    private func storedBytes(
        _ chunk: ChunkEntry, _ file: FileByteSource, readingUpTo readLimit: UInt64
    ) throws -> UnsafeRawBufferPointer {
        let count = Int(chunk.storedLength)
        let end = chunk.offset + UInt64(count)
        if count <= Self.windowedChunk {
            if chunk.offset < windowRange.lowerBound || end > windowRange.upperBound {
                windowRange = 0..<0
                let upper = max(end, min(chunk.offset + UInt64(Self.windowSize), readLimit, file.size))
                do {
                    try file.read(
                        at: chunk.offset,
                        into: UnsafeMutableRawBufferPointer(start: window, count: Int(upper - chunk.offset)))
                    windowRange = chunk.offset..<upper
                } catch {
                    // Read as the reader would, for its error.
                    try file.read(at: chunk.offset, into: UnsafeMutableRawBufferPointer(start: window, count: count))
                    windowRange = chunk.offset..<end
                }
            }
            return UnsafeRawBufferPointer(start: window + Int(chunk.offset - windowRange.lowerBound), count: count)
        }
        if single.count < count {
            single.deallocate()
            single = .allocate(byteCount: count, alignment: 64)
        }
        let part = UnsafeMutableRawBufferPointer(rebasing: single[..<count])
        try file.read(at: chunk.offset, into: part)
        return UnsafeRawBufferPointer(part)
    }
}
