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
            var raw = [UInt8](repeating: 0, count: Int(entry.rawLength))
            let ok = stored.withUnsafeBytes { source in raw.withUnsafeMutableBytes { LZ4.decompress(source, into: $0) } }
            guard ok else { throw WebArcError.corruptChunk(chunk: index, offset: entry.offset) }
            return raw
        case nil:
            throw WebArcError.unsupportedCodec(codec: entry.codecValue, chunk: index, offset: entry.offset)
        }
    }
}
