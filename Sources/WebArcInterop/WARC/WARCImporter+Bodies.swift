import WebArc

extension WARCImporter {
    /// Bytes of payloads read before their turn that wait to be stored, at most (each a spool,
    /// held in memory up to ``BodySpool/memoryLimit``): beyond it, a payload is read again when its
    /// turn comes.
    static let waitingBudget: UInt64 = 64 << 20

    /// Reads again the payloads numbered `indices`, decodes their content codings where it can,
    /// and stores them in that order (the order the records first use them).
    ///
    /// The files are read front to back: a payload met before its turn (the original of a
    /// revisit kept instead of it) waits, within ``waitingBudget``, and one over the budget is
    /// read again at its turn. So a gzip WARC of one member, where reading backwards means
    /// decompressing from the start again, is not read once per payload out of order.
    func storeBodies(
        _ indices: [Int], in writer: ArchiveWriter, context: ImportContext,
        beforeEach: (Int, [Int: StoredPayload]) throws -> Void
    ) throws -> [Int: StoredPayload] {
        try storeBodies(
            indices, in: writer, context: context, waitingBudget: Self.waitingBudget, beforeEach: beforeEach)
    }

    /// ``storeBodies(_:in:context:beforeEach:)`` with `waitingBudget` bytes of payloads waiting at most.
    func storeBodies(
        _ indices: [Int], in writer: ArchiveWriter, context: ImportContext, waitingBudget: UInt64,
        beforeEach: (Int, [Int: StoredPayload]) throws -> Void = { _, _ in }
    ) throws -> [Int: StoredPayload] {
        var result: [Int: StoredPayload] = [:]
        var readers: [Int: WARCRecordReader] = [:]
        func read(_ index: Int) throws -> ContentCoding.Outcome {
            let source = bodies[index]
            let reader: WARCRecordReader
            if let open = readers[source.file] {
                reader = open
            } else {
                let file = files[source.file]
                reader = WARCRecordReader(
                    stream: try WARCStream(file: try file.window ?? InputFile(path: file.path), gzip: file.isGzip))
                readers[source.file] = reader
            }
            try reader.stream.seek(to: source.start.position)
            guard let start = try reader.next() else {
                throw InteropError.truncatedRecord(
                    at: source.start.location, declared: source.start.header.contentLength, available: 0)
            }
            if source.isHTTP { _ = try readHead(reader, start: start, required: true) }
            let spool = BodySpool()
            var alreadyChecked: PayloadDigestCheck?
            _ = try readPayload(
                reader, chunked: source.chunked, location: source.start.location, into: spool, digest: &alreadyChecked)
            let outcome = try ContentCoding.decode(spool, codings: source.codings, wire: true)
            if let failure = outcome.failure {
                context.note(
                    .contentNotDecoded(
                        at: source.start.location, url: source.url, coding: outcome.remaining.joined(separator: ", "),
                        reason: failure))
            }
            return outcome
        }

        var waiting: [Int: ContentCoding.Outcome] = [:]
        var waitingBytes: UInt64 = 0
        var passed = Set<Int>()
        var next = 0
        /// Stores every payload whose turn has come and that waits or was passed over (read again
        /// now).
        func storeInTurn() throws {
            while next < indices.count {
                let index = indices[next]
                let outcome: ContentCoding.Outcome
                if let ready = waiting.removeValue(forKey: index) {
                    waitingBytes -= ready.body.count
                    outcome = ready
                } else if passed.remove(index) != nil {
                    outcome = try read(index)
                } else {
                    return
                }
                try beforeEach(index, result)
                result[index] = StoredPayload(body: try outcome.body.store(in: writer), remaining: outcome.remaining)
                next += 1
            }
        }
        let fileOrder = indices.sorted {
            (bodies[$0].file, bodies[$0].start.position) < (bodies[$1].file, bodies[$1].start.position)
        }
        for index in fileOrder {
            if index == indices[next] {
                let outcome = try read(index)
                try beforeEach(index, result)
                result[index] = StoredPayload(body: try outcome.body.store(in: writer), remaining: outcome.remaining)
                next += 1
                try storeInTurn()
            } else if waitingBytes + bodies[index].start.header.contentLength <= waitingBudget {
                let outcome = try read(index)
                waiting[index] = outcome
                waitingBytes += outcome.body.count
            } else {
                passed.insert(index)
            }
        }
        try storeInTurn()
        return result
    }
}
