import NIOCore
import Synchronization
import WebArc

/// Decoded bodies kept in memory for the next request, bounded in total bytes.
///
/// Bodies up to ``maxBodySize`` are decoded whole once and then written from memory (a
/// `ByteBuffer` is shared, not copied, between connections; see ``CachedBody`` for the memory
/// files sent with `sendfile`); larger bodies are never cached and always stream chunk by chunk. Two threads missing the same body may both decode it; the last
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
    private let cache: Mutex<LRUCache<Key, CachedBody>>

    /// Whether large bodies may go into memory files (see ``CachedBody``).
    let usesFiles: Bool
    /// The event loops that send from memory files: each file holds a descriptor for each.
    let loops: Int

    /// Makes a cache of at most `capacity` bytes; bodies larger than `capacity / 8` (and 4 MiB)
    /// are not cached. Memory files get one descriptor for each of `loops` event loops.
    init(capacity: Int, usesFiles: Bool, loops: Int) {
        self.usesFiles = usesFiles
        self.loops = loops
        maxBodySize = UInt64(min(capacity / 8, 4 << 20))
        cache = Mutex(LRUCache(capacity: capacity))
    }

    /// The whole body when the cache holds it, marking it most recently used.
    func cached(_ key: Key) -> CachedBody? {
        cache.withLock { $0.value(for: key) }
    }

    /// The whole body, from the cache or decoded now; nil when it is too large to cache. A body
    /// decoded now into a memory file is put after `head` (see ``CachedBody``).
    ///
    /// - Throws: ``WebArcError`` when the body cannot be read or decoded.
    func body(_ body: ServedBody, head: ByteBuffer = ByteBuffer()) throws -> CachedBody? {
        guard body.entry.length <= maxBodySize else { return nil }
        if let cached = cached(body.key) { return cached }
        return store(try decode(body), for: body.key, head: head)
    }

    /// The body decoded into one buffer from its chunks, without looking in or adding to the cache.
    ///
    /// - Throws: ``WebArcError`` when the body cannot be read or decoded.
    func decode(_ body: ServedBody) throws -> ByteBuffer {
        var buffer = allocator.buffer(capacity: Int(body.entry.length))
        var chunks = try body.reader.makeChunkIterator(for: body.entry)
        while let chunk = try chunks.next() { buffer.writeBytes(chunk) }
        return buffer
    }

    /// What the cache holds now: bodies, their accounted bytes, and its budget.
    var usage: (count: Int, cost: Int, capacity: Int) {
        cache.withLock { ($0.count, $0.totalCost, $0.capacity) }
    }

    /// Drops every cached body (the archives they came from were replaced).
    func removeAll() {
        cache.withLock { $0 = LRUCache(capacity: $0.capacity) }
    }

    /// Caches a decoded body (after `head` when it goes into a memory file) and returns it as cached.
    @discardableResult
    func store(_ buffer: ByteBuffer, for key: Key, head: ByteBuffer) -> CachedBody {
        let cached = usesFiles ? CachedBody.make(buffer, head: head, loops: loops) : .memory(buffer)
        cache.withLock { $0.insert(cached, for: key, cost: buffer.readableBytes + head.readableBytes + 64) }
        return cached
    }
}
