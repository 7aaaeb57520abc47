import Foundation

/// Writes the archive an update names from its records in insertion order, their bodies read and
/// coded on worker threads (``ApplyPipeline``), and checks it against the digest and length the
/// update names before it is renamed into place (spec §13.1; Spec/compact-update.md §6). What
/// ``UpdateApplier`` and ``CompactApplier`` share.
struct AppliedArchive {
    var metadata: ArchiveMetadata
    var recipe: WriterRecipe
    var expected: (digest: [UInt8], archiveLength: UInt64)
    var appendix: [UInt8]
    /// The SHA-256 of the result's body data the update names (`Target.bodyData`, or a version 2
    /// compact update's `targetBodyData`): every pass checks it.
    var bodyData: SHA256Hash? = nil
    /// Whether a first pass copies the stored chunks it reuses undecoded and leaves the digests of
    /// those it decodes unchecked, relying on the check of ``bodyData`` (only with one).
    var copiesUnchecked = false
    var workers: Int

    /// Writes `records` to `path`, taking them in `order` (tree positions in insertion order).
    ///
    /// With ``bodyData`` and ``copiesUnchecked``, a first pass copies the stored chunks it reuses
    /// without decoding them, and codes the chunks it decodes without checking their digests,
    /// relying on the check of the body data it wrote against that digest.
    /// When that fails (a damaged base) or without it, a pass checks every chunk it reads against
    /// its own digest (naming a damaged one); when that pass, reusing stored chunks, gives another
    /// archive (a layer not written by this writer's rules), every chunk is coded again. With
    /// ``bodyData``, every pass checks the body data against it.
    ///
    /// - Throws: `badTarget` when the result is not the one named; read and I/O errors (a damaged
    ///   chunk: `chunkDigest`, from the checking pass).
    func write(
        _ records: AppliedRecords, order: InsertionOrder.Positions, to path: String, overwrite: Bool,
        progress: ((Int, Int) -> Void)?
    ) throws -> UpdateApplier.Summary {
        var summary = UpdateApplier.Summary()
        try records.seal()
        let anchors = try anchorPlan(records, order: order)
        var indexBases = searchBases(records)
        func pass(
            reuse: Bool, unchecked: Bool = false, summary: inout UpdateApplier.Summary
        ) throws {
            try indexedPass(
                records, order: order, to: path, overwrite: overwrite, reuse: reuse, unchecked: unchecked,
                anchors: anchors, indexBases: &indexBases, summary: &summary, progress: progress)
        }
        if bodyData != nil && copiesUnchecked {
            do {
                try pass(reuse: true, unchecked: true, summary: &summary)
                summary.copiedUnchecked = true
                return written(summary)
            } catch WebArcError.badTarget {
                summary = UpdateApplier.Summary()
                summary.checkedAgain = true
            }
        }
        do {
            try pass(reuse: true, summary: &summary)
        } catch WebArcError.badTarget where summary.chunksReused > 0 {
            let checkedAgain = summary.checkedAgain
            summary = UpdateApplier.Summary()
            summary.checkedAgain = checkedAgain
            summary.codedAgain = true
            try pass(reuse: false, summary: &summary)
        }
        return written(summary)
    }

    /// The layers whose own search index may give the result's documents (``SearchIndexContributor/reuseIndex(of:)``):
    /// each plain archive (no bases) the records are copied from, when the result has an index.
    private func searchBases(_ records: AppliedRecords) -> [ArchiveReader] {
        guard recipe.search != nil else { return [] }
        return records.usedLayers.sorted().map { records.layers[$0] }.filter {
            (try? $0.metadata.bases.isEmpty) == true
        }
    }

    /// A ``pass(_:keys:to:overwrite:reuse:unchecked:anchors:indexBases:finishing:summary:progress:)``
    /// taking the search index's unchanged documents from one of `indexBases`. When it fails once
    /// the index is being written (a base's index that does not give the target's, or any error
    /// there), it runs again analysing every document, and so do the passes after it
    /// (`indexBases` emptied): the base's index saves time, never decides the result.
    private func indexedPass(
        _ records: AppliedRecords, order: InsertionOrder.Positions, to path: String, overwrite: Bool, reuse: Bool,
        unchecked: Bool,
        anchors: AnchorPlan, indexBases: inout [ArchiveReader], summary: inout UpdateApplier.Summary,
        progress: ((Int, Int) -> Void)?
    ) throws {
        var finishing = false
        do {
            try pass(
                records, order: order, to: path, overwrite: overwrite, reuse: reuse, unchecked: unchecked,
                anchors: anchors, indexBases: indexBases, finishing: &finishing, summary: &summary, progress: progress)
        } catch  where finishing && summary.searchDocumentsReused > 0 {
            indexBases = []
            let checkedAgain = summary.checkedAgain
            summary = UpdateApplier.Summary()
            summary.checkedAgain = checkedAgain
            summary.searchRebuilt = true
            try pass(
                records, order: order, to: path, overwrite: overwrite, reuse: reuse, unchecked: unchecked,
                anchors: anchors, indexBases: [], finishing: &finishing, summary: &summary, progress: progress)
        }
    }

    /// `summary` with the result's archive digest and file size: the target's, which the
    /// writer's finish checked.
    private func written(_ summary: UpdateApplier.Summary) -> UpdateApplier.Summary {
        var summary = summary
        summary.archiveDigest = expected.digest
        summary.fileSize = expected.archiveLength + UInt64(appendix.count)
        return summary
    }

    private func pass(
        _ records: AppliedRecords, order: InsertionOrder.Positions, to path: String, overwrite: Bool, reuse: Bool,
        unchecked: Bool,
        anchors: AnchorPlan, indexBases: [ArchiveReader], finishing: inout Bool,
        summary: inout UpdateApplier.Summary, progress: ((Int, Int) -> Void)?
    ) throws {
        // A pass after a failed one finds the entries its predecessor parked.
        try records.unpark()
        var options = ArchiveWriter.Options(overwrite: overwrite, recipe: recipe)
        options.anchorPlan = anchors
        // The target has totals exactly when its writer wrote them (2.2.2 and later).
        options.writesTotals = metadata.totals != nil
        // Runs of 8 MiB, not pack's 32: an apply aims at half pack's memory, and more runs cost
        // the merge little (figures: Tools/bench/NOTES.md, "apply and diff's memory").
        options.recordRunBytes = 8 << 20
        // Body number → its record's tree position, 4 bytes a body (`Int`s took 8). Bodies are
        // numbered in insertion order, so the writer finds a body's record by walking `order`.
        var bodyPositions: [Int32] = []
        bodyPositions.reserveCapacity(order.count)
        for position in order where records.hasJob(at: position) { bodyPositions.append(Int32(position)) }
        options.expectedBodies = bodyPositions.count
        // The index takes the documents a base's own index already holds, unchanged.
        let index = options.searchIndex(reusing: indexBases)
        let writer = try ArchiveWriter(path: path, options: options)
        writer.metadata = metadata
        let pipeline = ApplyPipeline(
            jobCount: bodyPositions.count, job: { try records.job(at: Int(bodyPositions[$0]))! },
            storedEntry: { try records.storedEntry(at: Int(bodyPositions[$0])) }, level: recipe.level,
            anchors: anchors, zstdLevel: recipe.zstdLevel, placement: recipe.placement,
            reuseStoredChunks: reuse,
            copyUnchecked: unchecked)
        let hasher = bodyData != nil ? BodyDataHasher(output: writer.output) : nil
        try writer.failing {
            var added = 0
            func copy(_ read: AppliedRecords.Read) throws {
                try writer.copy(read.record, from: read.reader)
                hasher?.advance(to: writer.output.length)
                added += 1
                progress?(added, order.count)
            }
            var bodiesTaken = 0
            try pipeline.run(workers: workers > 0 ? workers : AvailableCores.count) { body, output in
                precondition(body == bodiesTaken, "the pipeline gave body \(body) before body \(bodiesTaken)")
                bodiesTaken += 1
                while !records.hasJob(at: order[added]) { try copy(try records.read(at: order[added])) }
                let read = try records.read(at: order[added])
                guard case .response(var response) = read.record, case .prepared(let prepared, let reused) = output
                else {
                    try copy(read)
                    return
                }
                response.body = try writer.addBody(prepared).reference
                hasher?.advance(to: writer.output.length)
                try writer.add(response, key: read.key)
                summary.chunksReused += reused
                summary.chunksCoded += prepared.chunks.count - reused
                added += 1
                progress?(added, order.count)
            }
            while added < order.count { try copy(try records.read(at: order[added])) }
        }
        if let expected = bodyData, let hasher {
            try writer.failing {
                // The open group's chunk ends the body data (spec Appendix C step 16).
                try writer.closeGroup()
                let found = try hasher.digest(end: writer.output.length)
                guard found == expected else {
                    throw WebArcError.badTarget(
                        reason: "the result's body data has SHA-256 \(found.hex), the update names \(expected.hex)")
                }
            }
        }
        // The writer's finish reads no record: their tables leave memory to the search index.
        bodyPositions = []
        try records.park()
        finishing = true
        defer { summary.searchDocumentsReused = index?.reusedDocuments ?? 0 }
        try writer.finish(expected: expected, appendix: appendix)
    }

    /// The result's anchor positions (spec Appendix C step 13), by the rule its recipe names: for
    /// the keyed and local-minimum rules, from the key and body length of each response, in
    /// insertion order, read back from the log (not decoded).
    ///
    /// - Throws: `badTarget` for a rule this version does not know, before anything is written;
    ///   `io` when the log cannot be read.
    private func anchorPlan(_ records: AppliedRecords, order: InsertionOrder.Positions) throws -> AnchorPlan {
        var failure: (any Error)?
        let bodies = order.lazy.filter { records.hasJob(at: $0) }.map { position -> (key: [UInt8], length: UInt64) in
            guard failure == nil else { return ([], 0) }
            do {
                return try records.keyAndLength(at: position) ?? ([], 0)
            } catch {
                failure = error
                return ([], 0)
            }
        }
        let plan = try AnchorPlan.following(recipe, bodies: bodies)
        if let failure { throw failure }
        return plan
    }
}
