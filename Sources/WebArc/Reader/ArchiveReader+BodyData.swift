import Crypto

extension ArchiveReader {
    /// SHA-256 of this archive's body data, bytes 16 to `bodyDataEnd`: every chunk's stored bytes
    /// in the order they were written (`Target.bodyData`, spec §13.1).
    ///
    /// - Throws: what reading the archive throws.
    public func bodyDataDigest() throws -> SHA256Hash {
        var hasher = SHA256()
        try BodyDataDigest.update(&hasher, from: 16, to: trailer.bodyDataEnd) { offset, count in
            try source.read(at: offset, count: count)
        }
        return SHA256Hash(hasher.finalize())
    }
}

/// Hashes a stretch of body data read a piece at a time: what ``ArchiveReader/bodyDataDigest()``
/// and ``BodyDataHasher`` share.
enum BodyDataDigest {
    /// Bytes read at once, at most.
    static let piece = 4 << 20

    /// Adds the bytes from `start` to `end`, read by `read(offset, count)`, to `hasher`.
    static func update(
        _ hasher: inout SHA256, from start: UInt64, to end: UInt64, read: (UInt64, Int) throws -> [UInt8]
    ) throws {
        var offset = start
        while offset < end {
            let count = Int(min(UInt64(piece), end - offset))
            hasher.update(data: try read(offset, count))
            offset += UInt64(count)
        }
    }
}
