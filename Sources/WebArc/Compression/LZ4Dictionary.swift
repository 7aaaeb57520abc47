import CLZ4

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A dictionary loaded once and used for many LZ4 blocks (chunk codec 2): the last bytes of
/// another chunk, at most 64 KiB.
///
/// Loading hashes the whole dictionary; this keeps the loaded stream state as a template and
/// copies it for each block, so coding many small bodies against one dictionary costs one load.
/// The blocks are the ones `LZ4_loadDict` + `LZ4_compress_fast_continue` (level 1) or
/// `LZ4_loadDictHC` + `LZ4_compress_HC_continue` (levels 3–12) produce on a fresh stream, as spec
/// Appendix C step 13 fixes, with the dictionary where ``prefixed`` says: right before the block's
/// bytes (each block is copied after the dictionary first: liblz4's prefix mode, faster) or
/// apart from them (its external-dictionary mode). The two give the same block for most inputs,
/// not all. Not thread-safe: one coder per thread.
///
/// Spec: §6.2 (codec 2), Appendix C step 13, §7.3 `Writer.dictionaryPlacement`.
final class LZ4Dictionary {
    /// The dictionary's bytes (a private copy: the stream states point into it).
    let bytes: [UInt8]
    /// Whether each block is compressed right after the dictionary (`Writer.dictionaryPlacement`
    /// 1) rather than apart from it (absent or 0).
    let prefixed: Bool
    /// The dictionary, then (when ``prefixed``) room for one chunk.
    private let storage: UnsafeMutableRawBufferPointer
    private let fastTemplate: UnsafeMutablePointer<LZ4_stream_t>
    private let fastWork: UnsafeMutablePointer<LZ4_stream_t>
    private var hcTemplate: UnsafeMutablePointer<LZ4_streamHC_t>?
    private var hcWork: UnsafeMutablePointer<LZ4_streamHC_t>?
    private var hcLevel = 0

    /// Loads `bytes` (its last 64 KiB are used, as codec 2 decodes) for coding at level 1, placed
    /// as `placement` says (`.prefix`: right before each block; otherwise apart).
    init<C: Collection>(_ bytes: C, placement: DictionaryPlacement) where C.Element == UInt8 {
        self.bytes = Array(bytes.suffix(ChunkEntry.maxDictionaryLength))
        prefixed = placement == .prefix
        storage = .allocate(
            byteCount: max(1, self.bytes.count + (prefixed ? ChunkEntry.maxRawLength : 0)), alignment: 16)
        storage.copyBytes(from: self.bytes)
        fastTemplate = .allocate(capacity: 1)
        fastWork = .allocate(capacity: 1)
        LZ4_initStream(fastTemplate, MemoryLayout<LZ4_stream_t>.size)
        LZ4_initStream(fastWork, MemoryLayout<LZ4_stream_t>.size)
        LZ4_loadDict(fastTemplate, storage.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(self.bytes.count))
    }

    deinit {
        fastTemplate.deallocate()
        fastWork.deallocate()
        hcTemplate?.deallocate()
        hcWork?.deallocate()
        storage.deallocate()
    }

    /// Whether two dictionaries code every block alike: the same bytes (one `memcmp`, not an
    /// element-wise loop), placed alike.
    func codesAlike(_ other: LZ4Dictionary) -> Bool {
        prefixed == other.prefixed && bytes.count == other.bytes.count
            && memcmp(storage.baseAddress!, other.storage.baseAddress!, bytes.count) == 0
    }

    /// Whether `other` holds exactly this dictionary's bytes (one `memcmp`).
    func hasSameBytes(as other: [UInt8]) -> Bool {
        guard bytes.count == other.count else { return false }
        return other.isEmpty
            || other.withUnsafeBytes { memcmp(storage.baseAddress!, $0.baseAddress!, bytes.count) == 0 }
    }

    /// Compresses `source` as one block that refers to the dictionary, returning its size, or nil
    /// when it does not fit in `destination`.
    ///
    /// - Parameter level: 1 or 2 for `LZ4_compress_fast_continue` (acceleration 1), 3–12 for LZ4HC.
    func compress(_ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer, level: Int) -> Int?
    {
        guard source.count > 0, let src = source.baseAddress, let dst = destination.baseAddress else { return nil }
        guard !prefixed || source.count <= ChunkEntry.maxRawLength else {
            return compressAfterFreshLoad(source, into: destination, level: level)
        }
        let input: UnsafePointer<CChar>
        if prefixed {
            // The block goes right after the dictionary, where the template's state expects it.
            let room = storage.baseAddress! + bytes.count
            room.copyMemory(from: src, byteCount: source.count)
            input = UnsafePointer(room.assumingMemoryBound(to: CChar.self))
        } else {
            input = src.assumingMemoryBound(to: CChar.self)
        }
        let output = dst.assumingMemoryBound(to: CChar.self)
        let written: Int32
        if level < 3 {
            fastWork.update(from: fastTemplate, count: 1)
            written = LZ4_compress_fast_continue(
                fastWork, input, output, Int32(source.count), Int32(destination.count), 1)
        } else {
            let (template, work) = loadedHC(level: min(level, 12))
            work.update(from: template, count: 1)
            written = LZ4_compress_HC_continue(work, input, output, Int32(source.count), Int32(destination.count))
        }
        return written > 0 ? Int(written) : nil
    }

    /// A prefixed block longer than the room after the dictionary (no chunk is): the dictionary and
    /// the block copied into one buffer, the dictionary loaded there on a fresh stream.
    private func compressAfterFreshLoad(
        _ source: UnsafeRawBufferPointer, into destination: UnsafeMutableRawBufferPointer, level: Int
    ) -> Int? {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count + source.count, alignment: 16)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: bytes)
        (buffer.baseAddress! + bytes.count).copyMemory(from: source.baseAddress!, byteCount: source.count)
        let dictionary = buffer.baseAddress!.assumingMemoryBound(to: CChar.self)
        let input = dictionary + bytes.count
        let output = destination.baseAddress!.assumingMemoryBound(to: CChar.self)
        let written: Int32
        if level < 3 {
            let stream = UnsafeMutablePointer<LZ4_stream_t>.allocate(capacity: 1)
            defer { stream.deallocate() }
            LZ4_initStream(stream, MemoryLayout<LZ4_stream_t>.size)
            LZ4_loadDict(stream, dictionary, Int32(bytes.count))
            written = LZ4_compress_fast_continue(
                stream, input, output, Int32(source.count), Int32(destination.count), 1)
        } else {
            let stream = UnsafeMutablePointer<LZ4_streamHC_t>.allocate(capacity: 1)
            defer { stream.deallocate() }
            LZ4_initStreamHC(stream, MemoryLayout<LZ4_streamHC_t>.size)
            LZ4_resetStreamHC_fast(stream, Int32(min(level, 12)))
            LZ4_loadDictHC(stream, dictionary, Int32(bytes.count))
            written = LZ4_compress_HC_continue(stream, input, output, Int32(source.count), Int32(destination.count))
        }
        return written > 0 ? Int(written) : nil
    }

    /// The HC stream loaded with the dictionary at `level`, made on first use.
    private func loadedHC(level: Int) -> (UnsafeMutablePointer<LZ4_streamHC_t>, UnsafeMutablePointer<LZ4_streamHC_t>) {
        if let hcTemplate, let hcWork, hcLevel == level { return (hcTemplate, hcWork) }
        let template = hcTemplate ?? .allocate(capacity: 1)
        let work = hcWork ?? .allocate(capacity: 1)
        LZ4_initStreamHC(template, MemoryLayout<LZ4_streamHC_t>.size)
        LZ4_initStreamHC(work, MemoryLayout<LZ4_streamHC_t>.size)
        LZ4_resetStreamHC_fast(template, Int32(level))
        LZ4_loadDictHC(template, storage.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(bytes.count))
        hcTemplate = template
        hcWork = work
        hcLevel = level
        return (template, work)
    }
}
