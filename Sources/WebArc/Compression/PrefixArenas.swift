import Synchronization

/// Buffers that hold an LZ4 dictionary right before the block decoded after it, kept for reuse.
///
/// liblz4 decodes a block whose dictionary ends where its output starts as one stream (prefix
/// mode), faster than against a dictionary kept elsewhere (its external-dictionary
/// mode, which checks on every match whether it starts in the dictionary); the blocks and their
/// output are the same either way. An arena is the largest dictionary and the largest chunk,
/// 320 KiB; at most ``capacity`` are kept, the rest freed.
final class PrefixArenas: Sendable {
    /// The arenas every decoder of codec-2 chunks shares.
    static let shared = PrefixArenas()
    /// Arenas kept at most: one per thread that decodes at once is enough.
    let capacity = 8
    /// Bytes before ``Arena/output``: room for the largest dictionary.
    static let dictionaryRoom = ChunkEntry.maxDictionaryLength
    /// Bytes from ``Arena/output`` on: room for the largest chunk.
    static let outputRoom = ChunkEntry.maxRawLength
    private let idle = Mutex<[Arena]>([])

    /// One buffer: a dictionary goes right before ``output``, the decoded block at it.
    struct Arena: @unchecked Sendable {
        /// Start of the buffer (``PrefixArenas/dictionaryRoom`` plus ``PrefixArenas/outputRoom`` bytes).
        let base: UnsafeMutableRawPointer

        /// Where the decoded block goes; its dictionary ends here.
        var output: UnsafeMutableRawPointer { base + PrefixArenas.dictionaryRoom }
    }

    /// An arena no other thread uses.
    func take() -> Arena {
        idle.withLock { $0.popLast() }
            ?? Arena(base: .allocate(byteCount: Self.dictionaryRoom + Self.outputRoom, alignment: 64))
    }

    /// Takes back an arena from ``take()``.
    func give(_ arena: Arena) {
        let kept = idle.withLock { arenas -> Bool in
            guard arenas.count < capacity else { return false }
            arenas.append(arena)
            return true
        }
        if !kept { arena.base.deallocate() }
    }
}
