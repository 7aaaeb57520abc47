/// A cheap fingerprint of a byte string for telling near copies apart from unrelated bytes: the set
/// of hashes of the 64-byte windows a rolling (gear) hash picks, about one in 64, so that the same
/// passage picks the same windows wherever it lies.
///
/// Two near copies share most of their picks; ``resemblance(to:)`` is the share of this sketch's
/// picks the other one has.
struct ContentSketch {
    /// The picked window hashes.
    let picks: Set<UInt64>

    /// A window is picked when its hash's top bits are zero (the low bits depend on the last few
    /// bytes only): one in 2^`sampleBits`.
    static let sampleBits: UInt64 = 6
    /// At most this many picks are kept (the first ones), so a sketch stays small.
    static let maxPicks = 8192

    /// Sketches `bytes`.
    init<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        var picks = Set<UInt64>()
        var hash: UInt64 = 0
        // A gear hash shifts one bit per byte, so after 64 bytes a byte no longer counts: the
        // window is the last 64 bytes.
        for byte in bytes {
            hash = (hash << 1) &+ Self.gear[Int(byte)]
            if hash >> (64 - Self.sampleBits) == 0 {
                picks.insert(hash)
                if picks.count >= Self.maxPicks { break }
            }
        }
        self.picks = picks
    }

    /// The share (0 to 1) of this sketch's picks that `other` has too; 0 for an empty sketch.
    func resemblance(to other: ContentSketch) -> Double {
        guard !picks.isEmpty else { return 0 }
        let (small, large) = picks.count <= other.picks.count ? (picks, other.picks) : (other.picks, picks)
        let shared = small.reduce(0) { $0 + (large.contains($1) ? 1 : 0) }
        return Double(shared) / Double(picks.count)
    }

    /// 256 fixed pseudo-random values (SplitMix64 from seed 0x5eed), one per byte value.
    static let gear: [UInt64] = {
        var state: UInt64 = 0x5eed
        return (0..<256).map { _ in
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }()
}
