/// Sixteen messages hashed side by side, one per 32-bit lane of an AVX-512 register
/// (``MD5Lanes``, ``SHA256Lanes``): each lane is reset, fed whole 64-byte blocks (all busy lanes
/// the same number at once, or one lane alone), and finished with its last bytes.
protocol HashLanes {
    /// What a finished lane gives.
    associatedtype Digest: Equatable

    /// Number of lanes.
    static var count: Int { get }

    /// Starts a new message in `lane`.
    mutating func reset(_ lane: Int)

    /// Hashes `blocks` blocks from each non-nil pointer (its lane's next `64 × blocks` bytes); lanes
    /// with nil keep their state.
    mutating func update(_ pointers: [UnsafePointer<UInt8>?], blocks: Int)

    /// Hashes `blocks` blocks at `bytes` into `lane` alone, one stream.
    mutating func update(_ lane: Int, _ bytes: UnsafePointer<UInt8>, blocks: Int)

    /// The digest of `lane`'s message, whose last bytes (fewer than 64) are `tail` and whose
    /// length in all is `totalLength`.
    func finish(_ lane: Int, tail: UnsafeRawBufferPointer, totalLength: UInt64) -> Digest
}

extension MD5Lanes: HashLanes {}
extension SHA256Lanes: HashLanes {}
