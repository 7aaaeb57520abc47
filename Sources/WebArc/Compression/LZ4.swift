import CLZ4

/// Thin wrapper over liblz4's block API; the only file in the module that touches `CLZ4`.
///
/// Spec: §5.3 Chunk codecs.
enum LZ4 {
    /// The largest output `compress` can produce for `count` input bytes.
    static func compressBound(_ count: Int) -> Int {
        Int(LZ4_compressBound(Int32(count)))
    }

    /// Compresses `source` as one LZ4 block into `destination`, returning the compressed size.
    ///
    /// Level 1 and 2 use `LZ4_compress_default`; 3 to 12 use LZ4HC at that level. Both produce
    /// the same block format, so readers never know the difference. Returns `nil` when the block
    /// would not fit in `destination` (the caller then stores raw).
    static func compress(
        _ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer, level: Int = 1
    ) -> Int? {
        guard source.count > 0, let src = source.baseAddress, let dst = destination.baseAddress else { return nil }
        let input = src.assumingMemoryBound(to: CChar.self)
        let output = dst.assumingMemoryBound(to: CChar.self)
        let written = level < 3
            ? LZ4_compress_default(input, output, Int32(source.count), Int32(destination.count))
            : LZ4_compress_HC(input, output, Int32(source.count), Int32(destination.count), Int32(min(level, 12)))
        return written > 0 ? Int(written) : nil
    }

    /// Decompresses one LZ4 block that must expand to exactly `destination.count` bytes.
    ///
    /// Returns `false` when the block is malformed or does not expand to that size.
    static func decompress(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer) -> Bool {
        guard let src = source.baseAddress, let dst = destination.baseAddress else {
            return source.isEmpty && destination.isEmpty
        }
        let produced = LZ4_decompress_safe(
            src.assumingMemoryBound(to: CChar.self),
            dst.assumingMemoryBound(to: CChar.self),
            Int32(source.count),
            Int32(destination.count)
        )
        return produced == Int32(destination.count)
    }
}
