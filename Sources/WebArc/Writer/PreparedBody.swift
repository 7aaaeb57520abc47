import Crypto
import Foundation

/// A body hashed and compressed ahead of time, off the writer's thread, so that a packer can use
/// every core and hand finished bodies to the writer in order.
///
/// A body prepared without the dictionary the writer's order gives its position (spec Appendix
/// C step 13) is coded again by the writer, so the archive's bytes never depend on who prepared it.
package struct PreparedBody: @unchecked Sendable {
    let digest: BodyDigest
    let sha256: SHA256Hash
    let length: UInt64
    let chunks: [ChunkEncoder.Encoded]

    /// Hashes (MD5, SHA-256 of the body and of each chunk) and compresses `bytes` into chunks of
    /// 256 KiB, the last one shorter, without a dictionary.
    ///
    /// - Parameter level: 1 (fast, `LZ4_compress_default`, the default) or 3–12 (LZ4HC).
    package init<D: DataProtocol>(_ bytes: D, level: Int = 1) {
        let contiguous = Array(bytes)
        self = contiguous.withUnsafeBytes { PreparedBody(raw: $0, level: level, dictionary: nil) }
    }

    /// Reads and prepares a whole file, without a dictionary.
    ///
    /// - Throws: `io` when the file cannot be read.
    package init(contentsOfFile path: String, level: Int = 1) throws {
        self.init(try FileInput.readAll(path), level: level)
    }

    /// Prepares `raw`, its first chunk coded against `dictionary` (spec Appendix C step 13).
    ///
    /// A one-chunk body's hash is its chunk's digest, computed once; `md5` is taken when known.
    /// - Parameter known: digests already computed from these bytes (a body copied from a
    ///   verified archive, or a batch of files hashed in lanes by the pack pipeline: its MD5,
    ///   SHA-256 and, for chunks cut as this writer cuts them, their digests), so that they are
    ///   not computed again.
    /// - Parameter zstd: the Zstandard level and the history the writer's order gives this
    ///   position (spec Appendix C step 15), to try each chunk against ahead of the writer.
    init(
        raw: UnsafeRawBufferPointer, level: Int, dictionary: LZ4Dictionary?, md5: BodyDigest? = nil,
        known: KnownDigests? = nil,
        zstd: (level: Int, history: [UInt8])? = nil
    ) {
        var chunks: [ChunkEncoder.Encoded] = []
        chunks.reserveCapacity((raw.count + ChunkEntry.maxRawLength - 1) / ChunkEntry.maxRawLength)
        if let md5 = md5 ?? known?.md5 {
            digest = md5
        } else {
            var hasher = Insecure.MD5()
            hasher.update(bufferPointer: raw)
            digest = BodyDigest(hasher.finalize())
        }
        if raw.count <= ChunkEntry.maxRawLength {
            let hash = known?.sha256 ?? SHA256Hash.of(raw)
            if raw.count > 0 {
                chunks.append(ChunkEncoder.encode(raw, level: level, dictionary: dictionary, digest: hash))
            }
            sha256 = hash
            if let zstd, !chunks.isEmpty { chunks[0].tryZstd(raw, level: zstd.level, history: zstd.history) }
        } else {
            sha256 = known?.sha256 ?? SHA256Hash.of(raw)
            var start = 0
            var storeRaw = false
            while start < raw.count {
                let end = min(start + ChunkEntry.maxRawLength, raw.count)
                let chunkDigest = known?.chunks.flatMap { chunks.count < $0.count ? $0[chunks.count] : nil }
                let piece = UnsafeRawBufferPointer(rebasing: raw[start..<end])
                var chunk = ChunkEncoder.encode(
                    piece, level: level, dictionary: start == 0 ? dictionary : nil, storeRaw: storeRaw,
                    digest: chunkDigest)
                if let zstd { chunk.tryZstd(piece, level: zstd.level, history: zstd.history) }
                storeRaw = storeRaw || chunk.codec == .raw
                chunks.append(chunk)
                start = end
            }
        }
        length = UInt64(raw.count)
        self.chunks = chunks
    }

    /// A body whose chunks are coded already (by ``ChunkRecoder``), with its known digests.
    init(digest: BodyDigest, sha256: SHA256Hash, length: UInt64, chunks: [ChunkEncoder.Encoded]) {
        self.digest = digest
        self.sha256 = sha256
        self.length = length
        self.chunks = chunks
    }

    /// Whether this body was coded as the writer's order codes a body at a position whose
    /// dictionary is `expected`: its first chunk tried against `expected`.
    func matches(dictionary expected: LZ4Dictionary?) -> Bool {
        guard let first = chunks.first else { return true }
        return Self.same(first.triedDictionary, expected)
    }

    static func same(_ lhs: LZ4Dictionary?, _ rhs: LZ4Dictionary?) -> Bool {
        switch (lhs, rhs) {
        case (nil, nil): return true
        case let (left?, right?): return left === right || left.codesAlike(right)
        default: return false
        }
    }
}

/// Digests of a body's bytes computed earlier, for ``PreparedBody``.
struct KnownDigests: Sendable {
    var md5: BodyDigest
    var sha256: SHA256Hash
    /// The digests of the body's chunks as a writer cuts them (262 144 bytes each but the last),
    /// or nil when not known for that cut.
    var chunks: [SHA256Hash]?
}
