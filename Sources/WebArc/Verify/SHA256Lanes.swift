import CHashLanes

/// Sixteen SHA-256 computations advanced together, one per 32-bit lane of an AVX-512 register
/// (`CHashLanes`): SHA-256 is serial within a message, but the chunks of an archive are
/// independent messages, so `verify` hashes sixteen side by side, faster than SHA-NI's one stream
/// once enough lanes are busy (measurements: Tools/bench/NOTES.md, 'SHA256Lanes').
///
/// Used as ``MD5Lanes`` is: each lane is reset, fed whole 64-byte blocks (all busy lanes the same
/// number at once), and finished with its last bytes. Callers compare the digest with the stored
/// one exactly as one from swift-crypto, and the tests compare the two on random input.
struct SHA256Lanes {
    /// Number of lanes.
    static let count = Int(SHA256_LANES)
    /// True when this CPU has the 16-lane kernel (AVX-512F) and the process is not portable, as
    /// for ``MD5Lanes``.
    static let isAvailable = !Platform.portable && sha256_lanes_available() != 0

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

    /// Hashes `blocks` blocks at `bytes` into `lane` alone, as one stream (SHA-NI where present).
    mutating func update(_ lane: Int, _ bytes: UnsafePointer<UInt8>, blocks: Int) {
        guard blocks > 0 else { return }
        sha256_lanes_blocks_one(&state, Int32(lane), bytes, blocks)
    }

    /// The digest of `lane`'s message, whose last bytes (fewer than 64) are `tail` and whose
    /// length in all is `totalLength`.
    func finish(_ lane: Int, tail: UnsafeRawBufferPointer, totalLength: UInt64) -> SHA256Hash {
        precondition(tail.count < MD5Lanes.blockSize)
        var state = self.state
        var digest = [UInt8](repeating: 0, count: 32)
        digest.withUnsafeMutableBufferPointer { out in
            sha256_lanes_finish(
                &state, Int32(lane), tail.baseAddress?.assumingMemoryBound(to: UInt8.self), tail.count, totalLength,
                out.baseAddress!)
        }
        return SHA256Hash(bytes: digest)!
    }

    /// A stream that goes on from where `lane` stands after `length` bytes (whole blocks): the
    /// body-wide hash of a body of several chunks, begun as its first chunk's digest in the lanes.
    func stream(continuing lane: Int, length: UInt64) -> SHA256Stream {
        precondition(length % UInt64(MD5Lanes.blockSize) == 0)
        var stream = SHA256Stream()
        var state = self.state
        sha256_stream_init_from_lane(&stream.state, &state, Int32(lane), length)
        return stream
    }
}

/// One SHA-256 message hashed as a single stream (SHA-NI where the CPU has it), which can start
/// from a lane's state (``SHA256Lanes/stream(continuing:length:)``), as swift-crypto's cannot.
struct SHA256Stream {
    /// The C stream (advanced together with an MD5 by ``update(_:_:_:_:)``).
    var state = sha256_stream()

    /// A new, empty message.
    init() {
        sha256_stream_init(&state)
    }

    /// Adds `bytes` to the message.
    mutating func update(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { update($0) }
    }

    /// Adds the bytes at `buffer` to the message.
    mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        sha256_stream_update(&state, base.assumingMemoryBound(to: UInt8.self), buffer.count)
    }

    /// True where ``updatePair(_:_:_:)`` hashes both messages in one pass (SHA-NI) and the process
    /// is not portable (``Platform/portable``); elsewhere it runs the portable code twice, and
    /// swift-crypto is the faster choice.
    static let pairsInOnePass = !Platform.portable && sha256_stream_pairs_available() != 0

    /// Adds the same bytes to two messages (a chunk and the body it belongs to): with SHA-NI both
    /// in one pass, for about the cost of one.
    static func updatePair(_ first: inout SHA256Stream, _ second: inout SHA256Stream, _ buffer: UnsafeRawBufferPointer)
    {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        sha256_stream_update_pair(&first.state, &second.state, base.assumingMemoryBound(to: UInt8.self), buffer.count)
    }

    /// The digest of the message so far.
    func finish() -> SHA256Hash {
        var state = self.state
        var digest = [UInt8](repeating: 0, count: 32)
        digest.withUnsafeMutableBufferPointer { out in sha256_stream_finish(&state, out.baseAddress!) }
        return SHA256Hash(bytes: digest)!
    }
}
