import Foundation

/// Applies a compact update: writes the archive it names from its bases, byte for byte
/// (Spec/compact-update.md §6).
///
/// ```swift
/// let bases = try LayerStack([try ArchiveReader(path: "site-1.webarc")])
/// try CompactApplier(update: "site-1-to-2.webarcu", bases: bases).write(to: "site-2.webarc")
/// ```
///
/// The bases are checked first (`badBase`, before any section is read), then every section; the
/// target's records go to a writer with the target's metadata, in its insertion order, as
/// ``UpdateApplier`` writes an update archive's layered view; the result must have the target's
/// archive digest and length before it is renamed into place (`badTarget` otherwise, and nothing is
/// written), then the target's appendix (the publisher's signatures) follows it.
public struct CompactApplier {
    /// The compact update's path, or its name in errors when it is read from ``source``.
    public let update: String
    /// Where the update is read from when it is not the file at ``update`` (a URL's `HTTPByteSource`).
    public let source: (any ByteSource)?
    /// The archives it goes over, top first.
    public let bases: LayerStack
    /// Threads reading and coding bodies (0: one per core). The result is the same for any number.
    public var workers = 0

    /// Makes an applier of the compact update at `update` over `bases`.
    public init(update: String, bases: LayerStack) {
        self.update = update
        source = nil
        self.bases = bases
    }

    /// Makes an applier of the compact update read from `source` (named `update` in errors) over
    /// `bases`: a URL's `HTTPByteSource`, whose validator keeps a file replaced meanwhile from
    /// being mixed.
    public init(update: String, source: any ByteSource, bases: LayerStack) {
        self.update = update
        self.source = source
        self.bases = bases
    }

    /// The header of the compact update at `path`: its bases and target.
    ///
    /// - Throws: `badCompact`; `io`.
    public static func header(path: String) throws -> CompactUpdate.Header {
        try CompactPlan.header(try CompactUpdate.read(source: try FileByteSource(path: path))).0
    }

    /// Writes the target to `path` atomically.
    ///
    /// - Throws: `badBase` (wrong bases, before anything is read past the header), `badCompact`
    ///   (a damaged update: the section, its place and why), `badTarget` (the result is not the
    ///   target); ``WebArcError`` for damaged bases or I/O; nothing is left at `path` on failure.
    @discardableResult
    public func write(
        to path: String, overwrite: Bool = false, progress: ((Int, Int) -> Void)? = nil
    ) throws -> UpdateApplier.Summary {
        let plan = try CompactPlan(
            try CompactUpdate.read(source: try source ?? FileByteSource(path: update)), stack: bases, path: update)
        let recipe = plan.metadata.writer!
        let records = AppliedRecords(
            layers: bases.layers, newBodies: plan.newBodies, newBodyDigests: plan.newBodyDigests)
        try plan.forEachRecord { record, source, entry in try Self.append(record, source, entry, to: records) }
        let order: InsertionOrder.Positions
        do {
            order = try recipe.order.positionsInOrder(count: records.count)
        } catch let problem as InsertionOrder.Problem {
            throw WebArcError.badCompact(
                offset: 0, section: "records section", position: nil,
                reason: "target \(problem) (the update gives \(records.count) records)")
        }
        // Version 2 names the target's body data digest, which every pass checks: the bases' stored
        // chunks can then be copied undecoded, as for an update archive's `Target.bodyData`.
        let applied = AppliedArchive(
            metadata: plan.metadata, recipe: recipe, expected: (plan.header.targetDigest, plan.header.targetLength),
            appendix: plan.appendix,
            bodyData: plan.header.targetBodyData,
            copiesUnchecked: UpdateApplier.copiesUnchecked(records, target: plan.metadata, stack: bases),
            workers: workers)
        return try applied.write(records, order: order, to: path, overwrite: overwrite, progress: progress)
    }

    /// Appends a record of the plan as the writer takes it: a response names its body where its
    /// layer holds it (with its entry when the base's leaf gave it), or a new body (then its
    /// layer, the first, is never read for it).
    private static func append(
        _ record: ArchiveRecord, _ source: CompactPlan.Source, _ entry: BodyEntry?, to records: AppliedRecords
    ) throws {
        switch (record, source) {
        case (.response(let response), .base(let layer)):
            try records.append(record, layer: layer, body: .stored(response.body), entry: entry)
        case (.response(var response), .baseBody(let layer, let baseResponse)):
            response.body = baseResponse.body
            try records.append(.response(response), layer: layer, body: .stored(response.body), entry: entry)
        case (.response, .newBody(let number)):
            try records.append(record, layer: 0, body: .new(number))
        case (_, .base(let layer)):
            try records.append(record, layer: layer, body: .none)
        default:
            try records.append(record, layer: 0, body: .none)
        }
    }
}
