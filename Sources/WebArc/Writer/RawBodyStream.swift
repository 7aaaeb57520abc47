import Crypto

/// Cuts a body that arrives in pieces into 256 KiB chunks, hashing the body (MD5, SHA-256) and
/// encoding each chunk as the writer's order does at its position (spec §6.3, Appendix C step 13).
///
/// Memory stays at one chunk whatever the body's size. Used by the writer's streaming adds and,
/// off the writer's thread, by the packer's workers.
struct RawBodyStream {
    let level: Int
    /// The body's position and the dictionary its first chunk is coded against.
    let slot: (position: Int, isAnchor: Bool, dictionary: LZ4Dictionary?)
    /// Whether each chunk's bytes go to the body's MD5 and SHA-256 (and a later chunk's to its own
    /// SHA-256) in one pass (``SHA256Stream/update(_:_:_:_:)``, SHA-NI).
    let pairs: Bool
    /// The body's MD5 and SHA-256 with ``pairs``; `insecureMD5` and `sha256` (swift-crypto)
    /// without, each faster alone than the C stream's code.
    private var md5 = MD5Stream()
    private var bodyStream = SHA256Stream()
    private var insecureMD5 = Insecure.MD5()
    private var sha256 = SHA256()
    private var pending: [UInt8] = []
    private var chunks = 0
    private var storeRaw = false
    private(set) var length: UInt64 = 0
    private var finalDigest: BodyDigest?
    private var finalHash: SHA256Hash?

    /// - Parameter pairs: false to hash the MD5, each chunk and the body apart with swift-crypto,
    ///   as a CPU without SHA-NI, or a portable process (``Platform/portable``), always does.
    init(
        level: Int, slot: (position: Int, isAnchor: Bool, dictionary: LZ4Dictionary?),
        pairs: Bool = SHA256Stream.pairsInOnePass
    ) {
        self.level = level
        self.slot = slot
        self.pairs = pairs
        pending.reserveCapacity(ChunkEntry.maxRawLength)
    }

    /// Takes the next piece; `emit` gets each chunk as it fills.
    mutating func append(_ piece: ArraySlice<UInt8>, emit: (ChunkEncoder.Encoded) throws -> Void) throws {
        length += UInt64(piece.count)
        var rest = piece
        while !rest.isEmpty {
            // A whole chunk is coded from where it is, not copied into `pending` first.
            if pending.isEmpty && rest.count >= ChunkEntry.maxRawLength {
                try emitChunk(rest.prefix(ChunkEntry.maxRawLength), emit)
                rest = rest.dropFirst(ChunkEntry.maxRawLength)
                continue
            }
            let take = min(ChunkEntry.maxRawLength - pending.count, rest.count)
            pending.append(contentsOf: rest.prefix(take))
            rest = rest.dropFirst(take)
            if pending.count == ChunkEntry.maxRawLength { try emitPending(emit) }
        }
    }

    /// Emits the last, shorter chunk (if any) and fixes the body's digests.
    mutating func flush(_ emit: (ChunkEncoder.Encoded) throws -> Void) throws {
        if !pending.isEmpty { try emitPending(emit) }
        finalDigest = pairs ? md5.finish() : BodyDigest(insecureMD5.finalize())
        finalHash = pairs ? bodyStream.finish() : SHA256Hash(sha256.finalize())
    }

    private mutating func emitPending(_ emit: (ChunkEncoder.Encoded) throws -> Void) throws {
        try emitChunk(pending[...], emit)
        pending.removeAll(keepingCapacity: true)
    }

    /// Codes the next chunk and adds it to the body's MD5 and SHA-256. The first chunk's digest is
    /// the body hash so far (SHA-256 of the same bytes), so its bytes are hashed once for both; a
    /// later chunk's bytes go to its digest, the body hash and the MD5 in one pass where SHA-NI
    /// allows: MD5 is one stream no lanes can share, and SHA-NI beside it costs almost nothing.
    private mutating func emitChunk(_ raw: ArraySlice<UInt8>, _ emit: (ChunkEncoder.Encoded) throws -> Void) throws {
        let digest = raw.withUnsafeBytes { chunkDigest($0) }
        let chunk = raw.withUnsafeBytes {
            ChunkEncoder.encode(
                $0, level: level, dictionary: chunks == 0 ? slot.dictionary : nil, storeRaw: storeRaw, digest: digest)
        }
        storeRaw = storeRaw || chunk.codec == .raw
        chunks += 1
        try emit(chunk)
    }

    /// Adds the next chunk's bytes to the body's MD5 and SHA-256 and returns the chunk's SHA-256.
    private mutating func chunkDigest(_ raw: UnsafeRawBufferPointer) -> SHA256Hash {
        guard pairs else {
            insecureMD5.update(bufferPointer: raw)
            sha256.update(bufferPointer: raw)
            return chunks == 0 ? SHA256Hash(sha256.finalize()) : SHA256Hash.of(raw)
        }
        var chunk: SHA256Stream? = chunks == 0 ? nil : SHA256Stream()
        SHA256Stream.update(&md5, &bodyStream, &chunk, raw)
        return chunk?.finish() ?? bodyStream.finish()
    }

    /// The body's MD5, once flushed.
    var digest: BodyDigest { finalDigest! }
    /// The body's SHA-256, once flushed.
    var sha256Hash: SHA256Hash { finalHash! }
}
