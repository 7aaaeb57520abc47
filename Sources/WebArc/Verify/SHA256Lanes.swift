import CHashLanes

/// Sixteen SHA-256 computations advanced together, one per 32-bit lane of an AVX-512 register
/// (`CHashLanes`): one chunk's SHA-256 is serial, but the chunks of an archive are independent
/// messages, so `verify` checks sixteen chunk digests side by side at about twice one SHA-NI
/// stream's speed.
///
/// Used as ``MD5Lanes`` is: each lane is reset, fed whole 64-byte blocks (all busy lanes the same
/// number at once), and finished with its last bytes; the tests compare its digests with swift-crypto's.
struct SHA256Lanes {
    /// Number of lanes.
    static let count = Int(SHA256_LANES)
    /// Bytes in one SHA-256 block.
    static let blockSize = 64
    /// True when this CPU has the 16-lane kernel (AVX-512F and BW); without it callers use swift-crypto's `SHA256`.
    static let isAvailable = sha256_lanes_available() != 0

    private var state = sha256_lanes_state()

    /// Starts a new message in `lane`.
    mutating func reset(_ lane: Int) {
        sha256_lanes_reset(&state, Int32(lane))
    }

    /// Hashes `blocks` blocks from each non-nil pointer (its lane's next `64 × blocks` bytes); lanes
    /// with nil keep their state.
    mutating func update(_ pointers: [UnsafePointer<UInt8>?], blocks: Int) {
        precondition(pointers.count == Self.count)
        guard blocks > 0 else { return }
        pointers.withUnsafeBufferPointer { table in
            sha256_lanes_blocks(&state, table.baseAddress!, blocks)
        }
    }

    /// The digest of `lane`'s message, whose last bytes (fewer than 64) are `tail` and whose
    /// length in all is `totalLength`.
    func finish(_ lane: Int, tail: UnsafeRawBufferPointer, totalLength: UInt64) -> SHA256Hash {
        precondition(tail.count < Self.blockSize)
        var digest = [UInt8](repeating: 0, count: 32)
        var state = self.state
        digest.withUnsafeMutableBufferPointer { out in
            sha256_lanes_finish(
                &state, Int32(lane), tail.baseAddress?.assumingMemoryBound(to: UInt8.self), tail.count, totalLength,
                out.baseAddress!)
        }
        return SHA256Hash(bytes: digest)!
    }
}
