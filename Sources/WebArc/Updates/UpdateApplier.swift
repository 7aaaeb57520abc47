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

    /// The decoded-page cache each layer needs for an apply: its record leaves are walked once
    /// and its search pages read in order, so that a cache of 4 MiB serves as well as the 32 MiB
    /// a reader opens with.
    public static let layerPageCacheBytes = 4 << 20

    /// Bounds the page cache of each of `stack`'s readers to ``layerPageCacheBytes``: for readers
    /// opened for one apply, which nothing else reads from.
    public static func limitCaches(of stack: LayerStack) {
        for reader in stack.layers { reader.limitPageCache(bytes: layerPageCacheBytes) }
    }

    /// What applying did.
    public struct Summary: Sendable, Equatable {
        /// Chunks whose stored bytes were copied as they are (coded from the same input).
        public var chunksReused = 0
        /// Chunks coded again.
        public var chunksCoded = 0
        /// Whether a first pass that reused stored chunks gave another archive, so that every
        /// chunk was coded again (a base not written by this writer's rules).
        public var codedAgain = false
        /// Whether the stored chunks reused were copied without decoding them, the result's body
        /// data checked whole against the update's `Target.bodyData` instead.
        public var copiedUnchecked = false
        /// Whether a first pass that copied chunks unchecked gave other body data (a damaged base,
        /// or one another LZ4 build wrote), so that every chunk read was checked.
        public var checkedAgain = false
        /// The result's archive digest, once written: the target's, which the writer checked it
        /// against (nil before).
        public var archiveDigest: [UInt8]?
        /// The size of the result's file once written: the archive and its appendix (nil before).
        public var fileSize: UInt64?
        /// Documents of the result's search index taken from a base's index, their bodies not
        /// read back and analysed again.
        public var searchDocumentsReused = 0
        /// Whether a pass that took documents from a base's index failed while writing the index
        /// or the trailer (a base's index not written by this version's rules), so that the pass
        /// ran again analysing every document.
        public var searchRebuilt = false

        /// An empty summary.
        public init() {}
    }

    /// Whether copying stored chunks undecoded, then hashing the whole body data, costs less than
    /// decoding and checking them: when the stack's stored body data is under half the distinct
    /// bytes its records' bodies hold (pages that LZ4 shrinks). A stack of photos and video, stored
    /// raw, would pay a pass over every stored byte and save little. The distinct bytes are the
    /// target's `Totals.bodyBytes` when it names them, else the records' body bytes, duplicates
    /// included.
    static func copiesUnchecked(_ records: AppliedRecords, target: ArchiveMetadata, stack: LayerStack) -> Bool {
        let distinct = target.totals?.bodyBytes ?? records.responseBytes
        let stored = stack.layers.reduce(UInt64(0)) { $0 &+ ($1.trailer.bodyDataEnd - 16) }
        return stored < distinct / 2
    }

    /// Makes an applier for the top layer of `stack`.
    public init(stack: LayerStack) {
        self.stack = stack
    }

    /// Writes the result to `path` atomically.
    ///
    /// Each body is read once on ``workers`` threads; a chunk whose stored bytes are what the
    /// writer would store for it at its new position is copied as it is, the
    /// others are coded again. When the update names its target's body data digest
    /// (`Target.bodyData`, since 2.1.4) and its pages are mostly compressed
    /// (`copiesUnchecked(_:stack:)`), copied chunks are not decoded, and the chunks decoded to be
    /// coded again are not checked: the body data written is checked against that digest instead,
    /// and on a mismatch the result is written again with every chunk checked against its own
    /// digest (which names a damaged chunk). Otherwise every
    /// chunk is checked as it is read, and the body data still against the digest when named.
    ///
    /// - Throws: `badTarget` when the top layer names no target or the result differs from it;
    ///   ``WebArcError`` for damaged layers (a chunk failing its digest is never copied) or I/O;
    ///   nothing is left at `path` on failure.
    @discardableResult
    public func write(to path: String, overwrite: Bool = false, progress: ((Int, Int) -> Void)? = nil) throws -> Summary
    {
        let update = stack.top
        guard let target = try update.metadata.target else {
            throw WebArcError.badTarget(
                reason: "\(update.path) names no target archive: it is not an update made by `webarc diff`")
        }
        guard let recipe = target.archive.writer else {
            throw WebArcError.badTarget(reason: "\(update.path) names a target without a writer recipe")
        }
        let records = AppliedRecords(layers: stack.layers)
        // Each response's body entry comes with it and is logged: the body cache is left out.
        try stack.forEachKey({ RecordCursor($0, remembering: false) }) { _, layer, entries in
            for entry in entries {
                guard case .response(let response) = entry.record else {
                    try records.append(entry.record, layer: layer, body: .none)
                    continue
                }
                try records.append(entry.record, layer: layer, body: .stored(response.body), entry: entry.body)
            }
        }
        let order: InsertionOrder.Positions
        do {
            order = try recipe.order.positionsInOrder(count: records.count)
        } catch let problem as InsertionOrder.Problem {
            throw WebArcError.corruptIndex(
                page: update.trailer.metadata.offset, position: nil,
                reason: "target \(problem) (the layers give \(records.count) records)")
        }
        var metadata = target.archive
        metadata.target = nil
        let applied = AppliedArchive(
            metadata: metadata, recipe: recipe, expected: (target.digest, target.archiveLength),
            appendix: target.appendix,
            bodyData: target.bodyData, copiesUnchecked: Self.copiesUnchecked(records, target: metadata, stack: stack),
            workers: workers)
        return try applied.write(records, order: order, to: path, overwrite: overwrite, progress: progress)
    }
}
