import WebArc

extension WARCImporter {
    /// Reads again the payloads numbered `indices`, decodes their content codings where it can,
    /// and stores them in that order (the order the records use them, mostly file order: a
    /// payload earlier in its file than the one before is reached by seeking back).
    func storeBodies(_ indices: [Int], in writer: ArchiveWriter, context: ImportContext) throws -> [Int: StoredPayload] {
        var result: [Int: StoredPayload] = [:]
        var openFile = -1
        var reader: WARCRecordReader?
        for index in indices {
            let source = bodies[index]
            if source.file != openFile {
                openFile = source.file
                let file = files[source.file]
                reader = WARCRecordReader(stream: try WARCStream(file: try InputFile(path: file.path), gzip: file.isGzip))
            }
            guard let reader else { continue }
            try reader.stream.seek(to: source.start.position)
            guard let start = try reader.next() else {
                throw InteropError.truncatedRecord(at: source.start.location, declared: source.start.header.contentLength, available: 0)
            }
            if source.isHTTP { _ = try readHead(reader, start: start, required: true) }
            let spool = BodySpool()
            var alreadyChecked: PayloadDigestCheck?
            _ = try readPayload(reader, chunked: source.chunked, location: source.start.location, into: spool, digest: &alreadyChecked)
            let outcome = try ContentCoding.decode(spool, codings: source.codings, wire: true)
            if let failure = outcome.failure {
                context.note(.contentNotDecoded(
                    at: source.start.location, url: source.url, coding: outcome.remaining.joined(separator: ", "), reason: failure))
            }
            result[index] = StoredPayload(body: try outcome.body.store(in: writer), remaining: outcome.remaining)
        }
        return result
    }
}
