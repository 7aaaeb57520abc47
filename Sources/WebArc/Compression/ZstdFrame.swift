import CZstd

/// One Zstandard frame coded with a raw-content history (a *prefix*), as a compact update's
/// sections are (Spec/compact-update.md §2): the history is the decoder's state before the frame's
/// first byte, whatever its first bytes are (`ZSTD_CCtx_refPrefix` / `ZSTD_DCtx_refPrefix`), so a
/// page that changed a little costs the bytes that changed, whatever page lies before it.
///
/// The reader checks the frame header before it allocates: exactly one frame, a declared content
/// size within the caller's bound, no dictionary ID; then it decodes in one call into a buffer of
/// that size, with a window bound of 2^27.
enum ZstdFrame {
    /// The level a compact update's sections are coded at: pages against their previous versions
    /// code smaller than at level 19 (measurements: Tools/bench/NOTES.md, 'ZstdFrame').
    static let level: Int32 = 22
    /// The largest window a frame may use, and the bound of a section's content and history.
    static let maxWindowLog: Int32 = 27
    /// From a window of 2^22 bytes on (a history and content of 2 MiB or more), the match
    /// finder's tables are capped (``chainLog(history:content:window:)``, and 2^18 hash entries):
    /// level 22 would otherwise size them to the window (4 bytes an entry), many times the memory
    /// of the data itself. A previous version lies one history's length back, which the capped
    /// binary tree still reaches up to 2^(chain log - 1) bytes of history, so the cap costs little
    /// or no size there (measurements: Tools/bench/NOTES.md, 'ZstdFrame').
    static let cappedFromWindowLog: Int32 = 22
    static let maxHashLog: Int32 = 18
    /// The long-history coding's level, with ``largeHashLog`` and long-distance matching: a lazy
    /// hash-chain search, whose hash table keeps the last position of each hash however far back
    /// it lies, finds previous versions the capped tree no longer reaches (when a page's changes
    /// move it off the last match's offset), at a small part of level 22's time.
    static let largeLevel: Int32 = 12
    /// The long-history coding's hash table: 2^22 entries (16 MiB), one a position of 4 MiB.
    static let largeHashLog: Int32 = 22
    /// Up to this much history and content, the capped level 22 is tried too (a few seconds at
    /// most), and the shorter frame kept; past it, level 22 costs tens of seconds for a few
    /// percent at best.
    static let bothUpToBytes = 12 << 20
    /// What the chain table, the history and the content may take together, in bytes.
    static let tableBudget = 40 << 20

    /// The chain table's size (log 2 of its 4-byte entries) for a frame of `content` after
    /// `history`: 2^23 at most, less while the table and the data would pass ``tableBudget``,
    /// 2^20 at least, and never over the window's own (`window` + 1).
    static func chainLog(history: Int, content: Int, window: Int32) -> Int32 {
        let room = tableBudget - history - content
        var log: Int32 = 23
        while log > 20 && (4 << log) > room { log -= 1 }
        return min(log, window + 1)
    }

    /// The frame coding `content` after `prefix`: content size declared, no checksum, no dictionary
    /// ID, a window covering the prefix and the content (at most 2^27). From a window of
    /// ``cappedFromWindowLog`` on, the shorter of the capped level and the long-history coding up
    /// to ``bothUpToBytes`` of history and content, the long-history coding alone past it.
    static func encode(_ content: [UInt8], prefix: [UInt8], level: Int32 = ZstdFrame.level) -> [UInt8]? {
        var window: Int32 = 10
        while window < maxWindowLog && (1 << window) < prefix.count + content.count { window += 1 }
        guard window >= cappedFromWindowLog else {
            return code(content, prefix: prefix, [(ZSTD_c_compressionLevel, level)])
        }
        let chain = chainLog(history: prefix.count, content: content.count, window: window)
        let long = code(
            content, prefix: prefix,
            [
                (ZSTD_c_compressionLevel, min(level, largeLevel)), (ZSTD_c_windowLog, window),
                (ZSTD_c_hashLog, min(largeHashLog, window)), (ZSTD_c_chainLog, chain),
                (ZSTD_c_enableLongDistanceMatching, 1),
            ])
        guard prefix.count + content.count <= bothUpToBytes else { return long }
        var capped: [(ZSTD_cParameter, Int32)] = [(ZSTD_c_compressionLevel, level)]
        if window > 23 { capped.append((ZSTD_c_windowLog, window)) }
        capped += [(ZSTD_c_chainLog, chain), (ZSTD_c_hashLog, maxHashLog)]
        guard let tree = code(content, prefix: prefix, capped) else { return nil }
        guard let long, long.count < tree.count else { return tree }
        return long
    }

    /// `content` coded after `prefix` with `parameters` (and no dictionary ID); nil when Zstandard
    /// refuses a parameter or fails.
    private static func code(_ content: [UInt8], prefix: [UInt8], _ parameters: [(ZSTD_cParameter, Int32)]) -> [UInt8]?
    {
        guard let context = ZSTD_createCCtx() else { return nil }
        defer { ZSTD_freeCCtx(context) }
        for (parameter, value) in [(ZSTD_c_dictIDFlag, 0)] + parameters {
            guard ZSTD_isError(ZSTD_CCtx_setParameter(context, parameter, value)) == 0 else { return nil }
        }
        var output = [UInt8](repeating: 0, count: ZSTD_compressBound(content.count))
        let written = output.withUnsafeMutableBytes { destination in
            content.withUnsafeBytes { source in
                prefix.withUnsafeBytes { history -> Int in
                    if history.count > 0,
                        ZSTD_isError(ZSTD_CCtx_refPrefix(context, history.baseAddress, history.count)) != 0
                    {
                        return -1
                    }
                    let result = ZSTD_compress2(
                        context, destination.baseAddress, destination.count, source.baseAddress, source.count)
                    return ZSTD_isError(result) == 0 ? result : -1
                }
            }
        }
        guard written >= 0 else { return nil }
        output.removeSubrange(written...)
        return output
    }

    /// Why `frame` is not one frame this reader decodes, or its declared content size: checked
    /// before anything is allocated for it.
    static func contentSize(_ frame: ArraySlice<UInt8>, bound: Int) -> Result<Int, Problem> {
        frame.withUnsafeBytes { bytes in
            var magic: UInt32 = 0
            for (index, byte) in bytes.prefix(4).enumerated() { magic |= UInt32(byte) << (8 * index) }
            guard bytes.count >= 4, magic == 0xFD2F_B528 else { return .failure(.notAFrame) }
            let size = ZSTD_findFrameCompressedSize(bytes.baseAddress, bytes.count)
            guard ZSTD_isError(size) == 0, size == bytes.count else { return .failure(.notOneFrame) }
            guard ZSTD_getDictID_fromFrame(bytes.baseAddress, bytes.count) == 0 else { return .failure(.dictionaryID) }
            let declared = ZSTD_getFrameContentSize(bytes.baseAddress, bytes.count)
            guard declared < ZSTD_CONTENTSIZE_ERROR else { return .failure(.noContentSize) }
            guard declared <= UInt64(bound) else { return .failure(.tooLarge(declared: declared, bound: bound)) }
            return .success(Int(declared))
        }
    }

    /// The content of `frame` decoded after `prefix`, checked first by ``contentSize(_:bound:)``.
    static func decode(_ frame: ArraySlice<UInt8>, prefix: [UInt8], bound: Int) -> Result<[UInt8], Problem> {
        let size: Int
        switch contentSize(frame, bound: bound) {
        case .success(let declared): size = declared
        case .failure(let problem): return .failure(problem)
        }
        guard let context = ZSTD_createDCtx() else { return .failure(.doesNotDecode) }
        defer { ZSTD_freeDCtx(context) }
        // Not zero-filled first: only the bytes the decoder writes are kept.
        var written = -1
        let output = [UInt8](unsafeUninitializedCapacity: size) { destination, count in
            written = frame.withUnsafeBytes { source in
                prefix.withUnsafeBytes { history -> Int in
                    guard ZSTD_isError(ZSTD_DCtx_setParameter(context, ZSTD_d_windowLogMax, maxWindowLog)) == 0 else {
                        return -1
                    }
                    if history.count > 0,
                        ZSTD_isError(ZSTD_DCtx_refPrefix(context, history.baseAddress, history.count)) != 0
                    {
                        return -1
                    }
                    let result = ZSTD_decompressDCtx(
                        context, destination.baseAddress, size, source.baseAddress, source.count)
                    return ZSTD_isError(result) == 0 ? result : -1
                }
            }
            count = written == size ? size : 0
        }
        guard written == size else { return .failure(.doesNotDecode) }
        return .success(output)
    }

    /// Why a frame is refused.
    enum Problem: Error, Equatable, CustomStringConvertible {
        case notAFrame
        case notOneFrame
        case dictionaryID
        case noContentSize
        case tooLarge(declared: UInt64, bound: Int)
        case doesNotDecode

        var description: String {
            switch self {
            case .notAFrame: "not a Zstandard frame (magic number)"
            case .notOneFrame: "not exactly one Zstandard frame (cut short, malformed, or bytes after it)"
            case .dictionaryID: "the frame declares a dictionary ID"
            case .noContentSize: "the frame does not declare its content size"
            case .tooLarge(let declared, let bound): "the frame declares \(declared) bytes, over its bound \(bound)"
            case .doesNotDecode: "the frame does not decode to its declared size"
            }
        }
    }
}
