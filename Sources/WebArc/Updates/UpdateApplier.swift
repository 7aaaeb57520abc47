import Foundation

/// Applies an update: writes the archive its `Archive.target` names, byte for byte (spec §13.1).
///
/// ```swift
/// let stack = try LayerStack([try ArchiveReader(path: "site-1-to-2.webarc"), try ArchiveReader(path: "site-1.webarc")])
/// try UpdateApplier(stack: stack).write(to: "site-2.webarc")
/// ```
///
/// The layered view's records are given to a writer with the target's metadata, level and
/// dictionary interval, in the target's insertion order, each with its body's bytes from the layer
/// holding them; the result must have the target's archive digest and length before it is
/// renamed into place (`badTarget` otherwise, and nothing is written), then the target's
/// appendix (the publisher's signatures) follows it. A signature on the archive the update was
/// made from therefore verifies on the result.
public struct UpdateApplier {
    /// The update (top) over its bases.
    public let stack: LayerStack
    /// Threads reading and coding bodies (0: one per core). The result is the same for any number.
    public var workers = 0

    /// What applying did.
    public struct Summary: Sendable, Equatable {
        /// Chunks whose stored bytes were copied as they are (coded from the same input).
        public var chunksReused = 0
        /// Chunks coded again.
        public var chunksCoded = 0
        /// Whether a first pass that reused stored chunks gave another archive, so that every
        /// chunk was coded again (a base not written by this writer's rules).
        public var codedAgain = false

        /// An empty summary.
        public init() {}
    }

    /// Makes an applier for the top layer of `stack`.
    public init(stack: LayerStack) {
        self.stack = stack
    }

    /// Writes the result to `path` atomically.
    ///
    /// Each body is read once and every chunk checked against its digest; a chunk whose stored
    /// bytes are what the writer would store for it at its new position is copied as it is
    /// (``ChunkRecoder``), the others are coded again, on ``workers`` threads.
    ///
    /// - Throws: `badTarget` when the top layer names no target or the result differs from it;
    ///   ``WebArcError`` for damaged layers (a chunk failing its digest is never copied) or I/O;
    ///   nothing is left at `path` on failure.
    @discardableResult
    public func write(to path: String, overwrite: Bool = false, progress: ((Int, Int) -> Void)? = nil) throws -> Summary {
        let update = stack.top
        guard let target = try update.metadata.target else {
            throw WebArcError.badTarget(reason: "\(update.path) names no target archive: it is not an update made by `webarc diff`")
        }
        guard let recipe = target.archive.writer else {
            throw WebArcError.badTarget(reason: "\(update.path) names a target without a writer recipe")
        }
        var records: [(entry: ArchiveEntry, layer: Int)] = []
        try stack.forEachKey { _, group in
            for entry in group.entries { records.append((entry, group.layer)) }
        }
        let order: [Int]
        do {
            order = try recipe.order.positions(count: records.count)
        } catch let problem as InsertionOrder.Problem {
            throw WebArcError.corruptIndex(
                page: update.trailer.metadata.offset, position: nil, reason: "target \(problem) (the layers give \(records.count) records)")
        }
        var metadata = target.archive
        metadata.target = nil
        let applied = AppliedArchive(
            metadata: metadata, recipe: recipe, expected: (target.digest, target.archiveLength), appendix: target.appendix, workers: workers)
        return try applied.write(
            order.map { position in
                let (entry, layer) = records[position]
                var job: ApplyPipeline.Job?
                if case .response(let response) = entry.record { job = ApplyPipeline.Job(reader: stack.layers[layer], reference: response.body) }
                return AppliedArchive.Record(record: entry.record, reader: stack.layers[layer], job: job)
            }, to: path, overwrite: overwrite, progress: progress)
    }
}
