import CHashLanes

/// Sixteen MD5 computations advanced together, one per 32-bit lane of an AVX-512 register
/// (`CHashLanes`): MD5 is serial within a message, but the bodies of an archive are independent
/// messages, so `verify` hashes sixteen side by side at several times one stream's speed.
///
/// Each lane is reset, fed whole 64-byte blocks (all busy lanes the same number at once), and
/// finished with its last bytes. Only the digest is new code: callers compare it with the stored
/// MD5 exactly as one from `Insecure.MD5`, and the tests compare the two on random input.
struct MD5Lanes {
    /// Number of lanes.
    static let count = Int(MD5_LANES)
    /// Bytes in one MD5 block.
    static let blockSize = 64
    /// True when this CPU has the 16-lane kernel (AVX-512F) and the process is not portable
    /// (``Platform/portable``); without it callers use `Insecure.MD5`.
    static let isAvailable = !Platform.portable && md5_lanes_available() != 0

    private var state = md5_lanes_state()

    /// Starts a new message in `lane`.
    mutating func reset(_ lane: Int) {
        md5_lanes_reset(&state, Int32(lane))
    }

    /// Hashes `blocks` blocks from each non-nil pointer (its lane's next `64 × blocks` bytes); lanes
    /// with nil keep their state.
    mutating func update(_ pointers: [UnsafePointer<UInt8>?], blocks: Int) {
        precondition(pointers.count == Self.count)
        guard blocks > 0 else { return }
        pointers.withUnsafeBufferPointer { table in
            md5_lanes_blocks(&state, table.baseAddress!, blocks)
        }
    }

    /// Hashes `blocks` blocks at `bytes` into `lane` alone, with scalar code: about twice a lane's
    /// speed when the other fifteen are idle.
    mutating func update(_ lane: Int, _ bytes: UnsafePointer<UInt8>, blocks: Int) {
        guard blocks > 0 else { return }
        md5_lanes_blocks_one(&state, Int32(lane), bytes, blocks)
    }

    /// The digest of `lane`'s message, whose last bytes (fewer than 64) are `tail` and whose
    /// length in all is `totalLength`.
    func finish(_ lane: Int, tail: UnsafeRawBufferPointer, totalLength: UInt64) -> BodyDigest {
        precondition(tail.count < Self.blockSize)
        var digest = [UInt8](repeating: 0, count: 16)
        var state = self.state
        digest.withUnsafeMutableBufferPointer { out in
            md5_lanes_finish(
                &state, Int32(lane), tail.baseAddress?.assumingMemoryBound(to: UInt8.self), tail.count, totalLength,
                out.baseAddress!)
        }
        return BodyDigest(sixteen: digest)
    }
}
