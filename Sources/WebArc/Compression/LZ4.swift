import CLZ4

/// Thin wrapper over liblz4's block API; the only file in the module that touches `CLZ4`.
///
/// Spec: §5.1 (page codec 1), §6.2 (chunk codecs 1 and 2).
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
        let written =
            level < 3
            ? LZ4_compress_default(input, output, Int32(source.count), Int32(destination.count))
            : LZ4_compress_HC(input, output, Int32(source.count), Int32(destination.count), Int32(min(level, 12)))
        return written > 0 ? Int(written) : nil
    }

    /// Compresses `source` as one block, or returns nil when the block is not smaller than the input.
    static func compressedIfSmaller(_ source: UnsafeRawBufferPointer, level: Int = 1) -> [UInt8]? {
        var output = [UInt8](repeating: 0, count: compressBound(source.count))
        let written = output.withUnsafeMutableBytes { compress(source, into: $0, level: level) }
        guard let written, written < source.count else { return nil }
        output.removeSubrange(written...)
        return output
    }

    /// Decodes one LZ4 block that must expand to exactly `rawLength` bytes (with `LZ4_decompress_safe`,
    /// or `LZ4_decompress_safe_usingDict` when a dictionary is given), or returns nil.
    ///
    /// A dictionary is copied right before the output in an arena (``PrefixArenas``), so liblz4
    /// decodes in prefix mode: the same bytes, faster than against the dictionary where it is
    /// (``PrefixArenas``). The output is not zero-filled first: LZ4 writes every byte or the block is
    /// refused (and then none of it is kept).
    static func decode(_ stored: [UInt8], rawLength: Int, dictionary: ArraySlice<UInt8>? = nil) -> [UInt8]? {
        guard rawLength > 0, !stored.isEmpty else { return nil }
        if let dictionary, !dictionary.isEmpty, dictionary.count <= PrefixArenas.dictionaryRoom,
            rawLength <= PrefixArenas.outputRoom
        {
            return decodeAfterPrefix(stored, rawLength: rawLength, dictionary: dictionary)
        }
        var ok = false
        let raw = [UInt8](unsafeUninitializedCapacity: rawLength) { buffer, count in
            stored.withUnsafeBytes { source in
                let src = source.baseAddress!.assumingMemoryBound(to: CChar.self)
                let dst = UnsafeMutableRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
                let produced: Int32
                if let dictionary {
                    produced = dictionary.withUnsafeBytes { dict in
                        LZ4_decompress_safe_usingDict(
                            src, dst, Int32(stored.count), Int32(rawLength),
                            dict.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(dict.count))
                    }
                } else {
                    produced = LZ4_decompress_safe(src, dst, Int32(stored.count), Int32(rawLength))
                }
                ok = produced == Int32(rawLength)
            }
            count = ok ? rawLength : 0
        }
        return ok ? raw : nil
    }

    /// Decodes one LZ4 block that must expand to exactly `rawLength` bytes into `output` (a caller's
    /// reused buffer with room for them); the `prefixLength` bytes right before `output`, if any,
    /// are its dictionary (prefix mode). False when the block does not decode to exactly that.
    static func decode(
        _ stored: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer, rawLength: Int, prefixLength: Int = 0
    ) -> Bool {
        guard rawLength > 0, !stored.isEmpty else { return false }
        let src = stored.baseAddress!.assumingMemoryBound(to: CChar.self)
        let dst = output.assumingMemoryBound(to: CChar.self)
        let produced =
            prefixLength > 0
            ? LZ4_decompress_safe_usingDict(
                src, dst, Int32(stored.count), Int32(rawLength), dst - prefixLength, Int32(prefixLength))
            : LZ4_decompress_safe(src, dst, Int32(stored.count), Int32(rawLength))
        return produced == Int32(rawLength)
    }

    /// Decodes a block against a dictionary copied right before the output (prefix mode), then
    /// copies the output out of the arena. `dictionary` is 1 to 64 KiB, `rawLength` at most a chunk.
    private static func decodeAfterPrefix(_ stored: [UInt8], rawLength: Int, dictionary: ArraySlice<UInt8>) -> [UInt8]?
    {
        let arena = PrefixArenas.shared.take()
        defer { PrefixArenas.shared.give(arena) }
        let start = arena.output - dictionary.count
        dictionary.withUnsafeBytes { start.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        let produced = stored.withUnsafeBytes { source in
            LZ4_decompress_safe_usingDict(
                source.baseAddress!.assumingMemoryBound(to: CChar.self),
                arena.output.assumingMemoryBound(to: CChar.self),
                Int32(stored.count), Int32(rawLength), start.assumingMemoryBound(to: CChar.self),
                Int32(dictionary.count))
        }
        guard produced == Int32(rawLength) else { return nil }
        return [UInt8](UnsafeRawBufferPointer(start: arena.output, count: rawLength))
    }
}
