import Crypto
import Foundation

/// A body hashed and compressed ahead of time, off the writer's thread, so that a packer can use
/// every core and hand finished bodies to the writer in order.
public struct PreparedBody: Sendable {
    let digest: BodyDigest
    let sha256: SHA256Hash
    let length: UInt64
    let chunks: [ChunkEncoder.Encoded]

    /// Hashes (MD5, SHA-256 of the body and of each chunk) and compresses `bytes` into chunks of
    /// 256 KiB, the last one shorter.
    ///
    /// - Parameter level: 1 (fast, `LZ4_compress_default`, the default) or 3–12 (LZ4HC).
    public init<D: DataProtocol>(_ bytes: D, level: Int = 1) {
        let contiguous = Array(bytes)
        var md5 = Insecure.MD5()
        var sha256 = SHA256()
        var chunks: [ChunkEncoder.Encoded] = []
        var start = 0
        while start < contiguous.count {
            let end = min(start + ChunkEntry.maxRawLength, contiguous.count)
            let slice = contiguous[start..<end]
            slice.withUnsafeBytes {
                md5.update(bufferPointer: $0)
                sha256.update(bufferPointer: $0)
            }
            chunks.append(ChunkEncoder.encode(slice, level: level))
            start = end
        }
        digest = BodyDigest(md5.finalize())
        self.sha256 = SHA256Hash(sha256.finalize())
        length = UInt64(contiguous.count)
        self.chunks = chunks
    }

    /// Reads and prepares a whole file.
    ///
    /// - Throws: `io` when the file cannot be read.
    public init(contentsOfFile path: String, level: Int = 1) throws {
        self.init(try FileInput.readAll(path), level: level)
    }
}
