extension WARCImporter {
    /// Reads the rest of the record's block as its payload, removing chunked framing, into
    /// `sink` (or only checking it when `sink` is nil), feeding `digest` when there is one.
    ///
    /// - Returns: true when the headers said chunked but the payload holds no chunk framing (it
    ///   is then read as it is).
    /// - Throws: ``InteropError/badChunkedEncoding(at:reason:)`` when the framing breaks part way.
    func readPayload(
        _ reader: WARCRecordReader, chunked: Bool, location: InputLocation, into sink: BodySpool?,
        digest: inout PayloadDigestCheck?
    ) throws -> Bool {
        guard chunked else {
            while true {
                let piece = try reader.readBlock()
                if piece.isEmpty { return false }
                digest?.addStored(piece)
                try sink?.append(piece)
            }
        }
        let first = Array(try reader.readBlock())
        if first.isEmpty { return false }
        digest?.addStored(first)
        guard ChunkedDecoder.startsWithChunkSize(first[...]) else {
            digest?.addDecoded(first)
            try sink?.append(first)
            while true {
                let piece = try reader.readBlock()
                if piece.isEmpty { return true }
                digest?.addStored(piece)
                digest?.addDecoded(piece)
                try sink?.append(piece)
            }
        }
        var decoder = ChunkedDecoder()
        var output: [UInt8] = []
        var piece = first[...]
        while !piece.isEmpty {
            do {
                try decoder.decode(piece, into: &output)
            } catch {
                throw InteropError.badChunkedEncoding(at: location, reason: error.reason)
            }
            digest?.addDecoded(output)
            try sink?.append(output)
            output.removeAll(keepingCapacity: true)
            piece = try reader.readBlock()
            digest?.addStored(piece)
        }
        guard decoder.atChunkBoundary else {
            throw InteropError.badChunkedEncoding(at: location, reason: "the body ends inside a chunk")
        }
        return false
    }
}
