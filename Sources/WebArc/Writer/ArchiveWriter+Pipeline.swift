import Foundation

extension ArchiveWriter {
    /// Adds bodies that `read` gives by index, in index order, through the pack pipeline
    /// (``PackPipeline``): read on a worker per core a bounded window ahead of this writer,
    /// hashed sixteen at a time where the CPU can, coded against the dictionary each body's
    /// position gives it, then stored here in order. `added` runs on the calling thread with each
    /// index and its stored body before the next is stored, for its records.
    ///
    /// The archive holds the same bytes as when each body is given to ``addBody(_:)-(D)`` in turn.
    /// `read` runs on the worker threads, for several indexes at once; `sizes` (what `read` will
    /// give, near enough) bound the bytes in flight: 12 MiB of bodies, or one larger body.
    ///
    /// With a search index, `indexable` names the response each body will answer (its length
    /// aside): a worker analyses a body the index wants as soon as it has coded it, while this
    /// thread stores earlier ones, and ``finish()`` takes that analysis instead of reading the body
    /// back, when the response it indexes is that one (``AnalysesAhead``, within its budget).
    ///
    /// - Throws: the first error of `read`, of storing a body, or of `added`; the workers have
    ///   stopped when it returns.
    package func addBodies(
        sizes: [UInt64], read: @escaping @Sendable (Int) throws -> [UInt8],
        indexable: (@Sendable (Int) -> IndexableResponse?)? = nil, added: (Int, StoredBody) throws -> Void
    ) throws {
        try ensureOpen()
        guard !sizes.isEmpty else { return }
        let pipeline = PackPipeline(
            path: { _ in "" }, count: sizes.count, size: { sizes[$0] }, read: read,
            spans: repeatElement(1, count: sizes.count), level: options.compressionLevel,
            zstdLevel: options.zstdLevel, placement: options.dictionaryPlacement, firstPosition: anchors.nextPosition,
            wholeLimit: UInt64.max, windowBytes: SitePacker.windowBytes, batchFiles: 16 * MD5Lanes.count,
            laneHashing: MD5Lanes.isAvailable)
        pipeline.lookUpStoredBodies(with: storedBodyCheck)
        if let indexable, let analyze = analyzerAhead(indexable: indexable) { pipeline.analyzeAhead(with: analyze) }
        try pipeline.run(workers: AvailableCores.count) {
            anchors.plan
        } commit: { index, output, slot in
            let body: StoredBody
            switch output {
            case .prepared(let prepared): body = try addBody(prepared)
            case .likelyDuplicate(let bytes, let known): body = try addBody(likelyDuplicate: bytes, known: known)
            case .streamed: body = try addBody(chunks: { try pipeline.nextChunk(of: slot) }, end: { slot.streamEnd! })
            case .streamedDuplicate:
                // Only files over the pipeline's whole limit stream, and here every body is whole.
                throw WebArcError.invalidRecord(
                    url: "", reason: "body \(index) streamed from a source that gives bodies whole")
            }
            keep(analysisAhead: slot.analysis, of: body)
            try added(index, body)
        }
    }

    /// What a ``PackPipeline``'s workers call with each body they code (``PackPipeline/analyzeAhead``)
    /// when this writer has a search index: the index's analysis of the body, within the budget of
    /// ``AnalysesAhead``, when it wants the response `indexable` names (its length aside) for the
    /// body's index; nil: no index.
    func analyzerAhead(
        indexable: @escaping @Sendable (Int) -> IndexableResponse?
    ) -> (@Sendable (Int, [UInt8]) -> (any Sendable)?)? {
        guard let searchIndex else { return nil }
        nonisolated(unsafe) let analyzer = searchIndex
        let ahead = analysesAhead
        return { number, bytes in
            guard ahead.hasRoom, var offered = indexable(number) else { return nil }
            offered.length = UInt64(bytes.count)
            guard analyzer.wants(offered) else { return nil }
            let analysis = analyzer.analyze(offered, body: bytes)
            guard let held = analyzer.heldBytes(of: analysis), ahead.reserve(held) else { return nil }
            return AnalysisAhead(response: offered, analysis: analysis, bytes: held)
        }
    }

    /// Keeps what ``analyzerAhead(indexable:)`` gave for a body just stored as `body`, for
    /// ``finish()``; a duplicate's is let go of (the body's first response was analysed, or is read back).
    func keep(analysisAhead analysis: (any Sendable)?, of body: StoredBody) {
        guard let analysis = analysis as? AnalysisAhead else { return }
        if body.wasDeduplicated {
            analysesAhead.release(analysis)
        } else {
            analysesAhead.keep(analysis, for: body.reference)
        }
    }
}
