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

    /// Makes an applier for the top layer of `stack`.
    public init(stack: LayerStack) {
        self.stack = stack
    }

    /// Writes the result to `path` atomically.
    ///
    /// - Throws: `badTarget` when the top layer names no target or the result differs from it;
    ///   ``WebArcError`` for damaged layers or I/O; nothing is left at `path` on failure.
    public func write(to path: String, overwrite: Bool = false, progress: ((Int, Int) -> Void)? = nil) throws {
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
        let writer = try ArchiveWriter(
            path: path, options: .init(overwrite: overwrite, recipe: recipe))
        writer.metadata = metadata
        try writer.failing {
            for (done, position) in order.enumerated() {
                let (entry, layer) = records[position]
                try writer.copy(entry.record, from: stack.layers[layer])
                progress?(done + 1, order.count)
            }
        }
        try writer.finish(expected: (target.digest, target.archiveLength), appendix: target.appendix)
    }
}
