import NIOCore
import Synchronization
import WebArc

/// Decoded bodies kept in memory for the next request, bounded in total bytes.
///
/// Bodies up to ``maxBodySize`` are decoded whole once and then written from memory (a
/// `ByteBuffer` is shared, not copied, between connections); larger bodies are never cached and
/// always stream chunk by chunk. Two threads missing the same body may both decode it; the last
/// one stored wins, which costs time, never correctness.
final class HotBodyCache: Sendable {
    /// Identifies a decoded body: the archive it came from and its reference there.
    struct Key: Hashable {
        var archive: Int
        var reference: BodyReference
    }

    /// The largest body the cache holds.
    let maxBodySize: UInt64
    private let allocator = ByteBufferAllocator()
    private let cache: Mutex<LRUCache<Key, ByteBuffer>>

    /// Makes a cache of at most `capacity` bytes; bodies larger than `capacity / 8` (and 4 MiB)
    /// are not cached.
    init(capacity: Int) {
        maxBodySize = UInt64(min(capacity / 8, 4 << 20))
        cache = Mutex(LRUCache(capacity: capacity))
    }

    /// The whole body, from the cache or decoded now; nil when it is too large to cache.
    ///
    /// - Throws: ``WebArcError`` when the body cannot be read or decoded.
    func body(_ key: Key, length: UInt64, reader: ArchiveReader) throws -> ByteBuffer? {
        guard length <= maxBodySize else { return nil }
        if let buffer = cache.withLock({ $0.value(for: key) }) { return buffer }
        var buffer = allocator.buffer(capacity: Int(length))
        try reader.forEachChunk(of: key.reference) { buffer.writeBytes($0) }
        let stored = buffer
        cache.withLock { $0.insert(stored, for: key, cost: stored.readableBytes + 64) }
        return buffer
    }
}
