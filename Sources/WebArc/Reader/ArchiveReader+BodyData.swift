import Crypto

extension ArchiveReader {
    /// SHA-256 of this archive's body data, bytes 16 to `bodyDataEnd`: every chunk's stored bytes
    /// in the order they were written (`Target.bodyData`, spec §13.1).
    ///
    /// - Throws: what reading the archive throws.
    public func bodyDataDigest() throws -> SHA256Hash {
        try BodyDataDigest.of(end: trailer.bodyDataEnd) { offset, count in try source.read(at: offset, count: count) }
    }
}

/// Hashes a body data region, 4 MiB at a time.
enum BodyDataDigest {
    static let piece = 4 << 20

    /// SHA-256 of the bytes from 16 to `end`, read by `read(offset, count)`.
    static func of(end: UInt64, read: (UInt64, Int) throws -> [UInt8]) throws -> SHA256Hash {
        var hasher = SHA256()
        var offset: UInt64 = 16
        while offset < end {
            let count = Int(min(UInt64(piece), end - offset))
            let bytes = try read(offset, count)
            hasher.update(data: bytes)
            offset += UInt64(count)
        }
        return SHA256Hash(hasher.finalize())
    }
}
