/// Encodes one raw chunk the way a 1.0 writer does: LZ4 when that is smaller, raw otherwise.
///
/// Spec: §5.4, "A 1.0 writer splits a body…".
enum ChunkEncoder {
    /// One chunk ready to store.
    struct Encoded: Sendable {
        var stored: [UInt8]
        var rawLength: Int
        var codec: ChunkEntry.Codec
    }

    static func encode(_ raw: UnsafeRawBufferPointer, level: Int) -> Encoded {
        var output = [UInt8](repeating: 0, count: LZ4.compressBound(raw.count))
        let compressed = output.withUnsafeMutableBytes { LZ4.compress(raw, into: $0, level: level) }
        if let compressed, compressed < raw.count {
            output.removeSubrange(compressed...)
            return Encoded(stored: output, rawLength: raw.count, codec: .lz4)
        }
        return Encoded(stored: Array(raw), rawLength: raw.count, codec: .raw)
    }

    static func encode(_ raw: ArraySlice<UInt8>, level: Int) -> Encoded {
        raw.withUnsafeBytes { encode($0, level: level) }
    }

    /// Decodes a stored chunk, checking it expands to exactly `rawLength` bytes.
    static func decode(_ stored: [UInt8], entry: ChunkEntry, index: UInt64) throws -> [UInt8] {
        switch entry.codec {
        case .raw:
            guard stored.count == Int(entry.rawLength) else { throw WebArcError.corruptChunk(chunk: index, offset: entry.offset) }
            return stored
        case .lz4:
            // No zero-fill first: LZ4_decompress_safe writes every byte or the chunk is refused
            // (and then none of it is kept), which saves a memset of every decoded byte.
            let length = Int(entry.rawLength)
            var ok = false
            let raw = [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
                ok = stored.withUnsafeBytes { LZ4.decompress($0, into: UnsafeMutableRawBufferPointer(buffer)) }
                count = ok ? length : 0
            }
            guard ok else { throw WebArcError.corruptChunk(chunk: index, offset: entry.offset) }
            return raw
        case nil:
            throw WebArcError.unsupportedCodec(codec: entry.codecValue, chunk: index, offset: entry.offset)
        }
    }
}
