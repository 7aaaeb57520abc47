/// SplitMix64: a seeded generator so that random inputs replay.
public struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    /// Makes a generator whose output is fixed by `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `count` random bytes, one per ``next()`` (its low byte).
    public mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }
    }

    /// `count` random bytes, all eight of each ``next()`` in little-endian order: the cheaper
    /// stream for bodies of megabytes that must not compress away.
    public mutating func packedBytes(_ count: Int) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(count + 7)
        while output.count < count { withUnsafeBytes(of: next().littleEndian) { output += $0 } }
        return Array(output.prefix(count))
    }

    /// ``packedBytes(_:)`` of a fresh generator seeded with `seed`: the same bytes on every run.
    public static func packedBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        return generator.packedBytes(count)
    }

    /// `count` random bytes as `2 × count` lowercase hexadecimal digits.
    public mutating func hex(_ count: Int) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes(count).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }

    /// Text-like bytes that LZ4 compresses.
    public mutating func text(_ count: Int) -> [UInt8] {
        let words = ["archive", "kiosk", "offline", "<p>", "</p>", "body", "chunk", " ", "\n", "webarc", "index"]
        var output: [UInt8] = []
        while output.count < count { output += Array(words[Int.random(in: 0..<words.count, using: &self)].utf8) }
        return Array(output.prefix(count))
    }
}
