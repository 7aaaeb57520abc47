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
    /// The compact update's path.
    public let update: String
    /// The archives it goes over, top first.
    public let bases: LayerStack
    /// Threads reading and coding bodies (0: one per core). The result is the same for any number.
    public var workers = 0

    /// Makes an applier of the compact update at `update` over `bases`.
    public init(update: String, bases: LayerStack) {
        self.update = update
        self.bases = bases
    }

    /// The header of the compact update at `path`: its bases and target.
    ///
    /// - Throws: `badCompact`; `io`.
    public static func header(path: String) throws -> CompactUpdate.Header {
        try CompactPlan.header(try CompactUpdate.read(path: path)).0
    }

    /// Writes the target to `path` atomically.
    ///
    /// - Throws: `badBase` (wrong bases, before anything is read past the header), `badCompact`
    ///   (a damaged update: the section, its place and why), `badTarget` (the result is not the
    ///   target); ``WebArcError`` for damaged bases or I/O; nothing is left at `path` on failure.
    @discardableResult
    public func write(to path: String, overwrite: Bool = false, progress: ((Int, Int) -> Void)? = nil) throws -> UpdateApplier.Summary {
        let plan = try CompactPlan(try CompactUpdate.read(path: update), stack: bases, path: update)
        let recipe = plan.metadata.writer!
        let order: [Int]
        do {
            order = try recipe.order.positions(count: plan.records.count)
        } catch let problem as InsertionOrder.Problem {
            throw WebArcError.badCompact(
                offset: 0, section: "records section", position: nil, reason: "target \(problem) (the update gives \(plan.records.count) records)")
        }
        let inOrder = order.map { plan.records[$0] }
        var summary = UpdateApplier.Summary()
        func pass(reuse: Bool) throws {
            try write(plan, inOrder, recipe: recipe, to: path, overwrite: overwrite, reuse: reuse, summary: &summary, progress: progress)
        }
        do {
            try pass(reuse: true)
        } catch WebArcError.badTarget where summary.chunksReused > 0 {
            summary = UpdateApplier.Summary()
            summary.codedAgain = true
            try pass(reuse: false)
        }
        return summary
    }

    /// A record ready for the writer: itself (a response naming its body where `reader` holds
    /// it), and the reader to copy it from when its body is not prepared.
    private func resolved(_ planned: (record: ArchiveRecord, source: CompactPlan.Source), _ plan: CompactPlan) -> (ArchiveRecord, ArchiveReader?, ApplyPipeline.Job?) {
        switch (planned.record, planned.source) {
        case (.response(let response), .base(let layer)):
            return (planned.record, bases.layers[layer], ApplyPipeline.Job(reader: bases.layers[layer], reference: response.body))
        case (.response(var response), .baseBody(let ordinal)):
            let reader = bases.layers[plan.base.records[ordinal].layer]
            response.body = plan.base.response(ordinal)!.body
            return (.response(response), reader, ApplyPipeline.Job(reader: reader, reference: response.body))
        case (.response, .newBody(let number)):
            return (planned.record, nil, ApplyPipeline.Job(bytes: plan.newBodies[number]))
        case (_, .base(let layer)):
            return (planned.record, bases.layers[layer], nil)
        default:
            return (planned.record, bases.layers[0], nil)
        }
    }

    /// One pass: the records in insertion order given to a writer with the target's metadata.
    private func write(
        _ plan: CompactPlan, _ records: [(record: ArchiveRecord, source: CompactPlan.Source)], recipe: WriterRecipe, to path: String,
        overwrite: Bool, reuse: Bool, summary: inout UpdateApplier.Summary, progress: ((Int, Int) -> Void)?
    ) throws {
        let writer = try ArchiveWriter(path: path, options: .init(overwrite: overwrite, recipe: recipe))
        writer.metadata = plan.metadata
        let items = records.map { resolved($0, plan) }
        var jobs: [ApplyPipeline.Job] = []
        var bodyRecords: [Int] = []
        for (index, item) in items.enumerated() {
            guard let job = item.2 else { continue }
            jobs.append(job)
            bodyRecords.append(index)
        }
        let pipeline = ApplyPipeline(
            jobs: jobs, level: recipe.level, dictionaryInterval: recipe.dictionaryInterval, zstdLevel: recipe.zstdLevel, reuseStoredChunks: reuse)
        try writer.failing {
            var added = 0
            func copy(_ item: (ArchiveRecord, ArchiveReader?, ApplyPipeline.Job?)) throws {
                switch item.0 {
                case .redirect(let redirect): try writer.add(redirect)
                case .tombstone(let tombstone): try writer.add(tombstone)
                case .response: try writer.copy(item.0, from: item.1!)
                }
                added += 1
                progress?(added, items.count)
            }
            func addRecords(upTo end: Int) throws {
                while added < end { try copy(items[added]) }
            }
            try pipeline.run(workers: workers > 0 ? workers : ProcessInfo.processInfo.activeProcessorCount) { body, output in
                try addRecords(upTo: bodyRecords[body])
                guard case .response(var response) = items[added].0, case .prepared(let prepared, let reused) = output else {
                    try copy(items[added])
                    return
                }
                response.body = try writer.addBody(prepared).reference
                try writer.add(response)
                summary.chunksReused += reused
                summary.chunksCoded += prepared.chunks.count - reused
                added += 1
                progress?(added, items.count)
            }
            try addRecords(upTo: items.count)
        }
        try writer.finish(expected: (plan.header.targetDigest, plan.header.targetLength), appendix: plan.appendix)
    }
}
