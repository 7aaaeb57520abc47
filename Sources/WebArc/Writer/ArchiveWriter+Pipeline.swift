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
    /// - Throws: the first error of `read`, of storing a body, or of `added`; the workers have
    ///   stopped when it returns.
    package func addBodies(
        sizes: [UInt64], read: @escaping @Sendable (Int) throws -> [UInt8], added: (Int, StoredBody) throws -> Void
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
            try added(index, body)
        }
    }
}
