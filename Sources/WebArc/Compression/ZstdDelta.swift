import CZstd

/// Delta chunks (codec 3): one Zstandard frame whose history is a reference chunk's decoded bytes,
/// so a body that changed a little is stored as the few bytes that changed.
///
/// The writer codes with `ZSTD_compress_usingDict` (the spec's call, so other writers make the same
/// bytes) and does not try a reference that starts with the Zstandard dictionary magic, which that
/// call would read as a structured dictionary. The reader decodes with the reference as a prefix
/// (`ZSTD_DCtx_refPrefix`: always raw content), in one call into a buffer of the declared
/// `rawLength`, so no window buffer is allocated whatever a hostile frame declares.
///
/// Spec: §6.2 (codec 3), Appendix C step 14.
enum ZstdDelta {
    /// The level of Appendix C step 14: on 256 KiB chunks it finds the same matches as level 19
    /// in much less time (measurements: Tools/bench/NOTES.md, 'ZstdDelta.level').
    static let level: Int32 = 9
    /// The levels `ZSTD_compress_usingDict` takes that a writer may record (spec §7.3 `Writer.zstdLevel`).
    static let levels: ClosedRange<Int32> = 1...22

    /// The frame coding `raw` against `reference`, or nil when it is not shorter than `limit`.
    static func encode(
        _ raw: UnsafeRawBufferPointer, reference: UnsafeRawBufferPointer, shorterThan limit: Int,
        level: Int32 = ZstdDelta.level
    ) -> [UInt8]? {
        guard raw.count > 0, !startsWithDictionaryMagic(reference), let context = ZSTD_createCCtx() else { return nil }
        defer { ZSTD_freeCCtx(context) }
        var output = [UInt8](repeating: 0, count: ZSTD_compressBound(raw.count))
        let written = output.withUnsafeMutableBytes { destination in
            ZSTD_compress_usingDict(
                context, destination.baseAddress, destination.count, raw.baseAddress, raw.count,
                reference.baseAddress, reference.count, level)
        }
        guard ZSTD_isError(written) == 0, written < limit else { return nil }
        output.removeSubrange(written...)
        return output
    }

    /// The chunk a frame decodes to with `reference` as its history, or nil when the stored bytes
    /// are not exactly one Zstandard frame without a dictionary ID declaring `rawLength` bytes of
    /// content, or do not decode to them.
    static func decode(_ stored: [UInt8], rawLength: Int, reference: [UInt8]) -> [UInt8]? {
        guard rawLength > 0 else { return nil }
        let framed = stored.withUnsafeBytes { frame -> Bool in
            guard frame.count >= 4, frame.loadUnaligned(as: UInt32.self) == UInt32(littleEndian: 0xFD2F_B528) else {
                return false
            }
            guard ZSTD_findFrameCompressedSize(frame.baseAddress, frame.count) == frame.count else { return false }
            guard ZSTD_getDictID_fromFrame(frame.baseAddress, frame.count) == 0 else { return false }
            return ZSTD_getFrameContentSize(frame.baseAddress, frame.count) == UInt64(rawLength)
        }
        // A reference that starts with the dictionary magic is refused (spec §6.2): the writer's
        // call would have read it as a structured dictionary, so no frame can name it.
        let magic = reference.withUnsafeBytes { startsWithDictionaryMagic($0) }
        guard framed, !magic, let context = DecoderPool.shared.take() else { return nil }
        defer { DecoderPool.shared.give(context) }
        var written = -1
        let output = [UInt8](unsafeUninitializedCapacity: rawLength) { destination, count in
            written = stored.withUnsafeBytes { frame in
                reference.withUnsafeBytes { history -> Int in
                    guard ZSTD_isError(ZSTD_DCtx_refPrefix(context, history.baseAddress, history.count)) == 0 else {
                        return -1
                    }
                    let result = ZSTD_decompressDCtx(
                        context, destination.baseAddress, destination.count, frame.baseAddress, frame.count)
                    return ZSTD_isError(result) == 0 ? result : -1
                }
            }
            count = written == rawLength ? rawLength : 0
        }
        guard written == rawLength else { return nil }
        return output
    }

    /// Whether `bytes` start with the Zstandard dictionary magic `37 A4 30 EC`.
    static func startsWithDictionaryMagic(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 4 && bytes.loadUnaligned(as: UInt32.self) == UInt32(littleEndian: 0xEC30_A437)
    }
}
