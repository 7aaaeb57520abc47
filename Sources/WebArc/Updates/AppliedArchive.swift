import Foundation

/// Writes the archive an update names from its records in insertion order, their bodies read and
/// coded on worker threads (``ApplyPipeline``), and checks it against the digest and length the
/// update names before it is renamed into place (spec §13.1; Spec/compact-update.md §6). What
/// ``UpdateApplier`` and ``CompactApplier`` share.
struct AppliedArchive {
    /// One record of the result: itself, the layer it is copied from (with its body, when that is
    /// too large to be prepared), and its body's job (nil: no body).
    struct Record {
        var record: ArchiveRecord
        var reader: ArchiveReader
        var job: ApplyPipeline.Job?
    }

    var metadata: ArchiveMetadata
    var recipe: WriterRecipe
    var expected: (digest: [UInt8], archiveLength: UInt64)
    var appendix: [UInt8]
    var workers: Int

    /// Writes `records` to `path`; when a first pass that reuses stored chunks gives another
    /// archive (a layer not written by this writer's rules), every chunk is coded again.
    ///
    /// - Throws: `badTarget` when the result is not the one named; read and I/O errors.
    func write(_ records: [Record], to path: String, overwrite: Bool, progress: ((Int, Int) -> Void)?) throws -> UpdateApplier.Summary {
        var summary = UpdateApplier.Summary()
        do {
            try pass(records, to: path, overwrite: overwrite, reuse: true, summary: &summary, progress: progress)
        } catch WebArcError.badTarget where summary.chunksReused > 0 {
            summary = UpdateApplier.Summary()
            summary.codedAgain = true
            try pass(records, to: path, overwrite: overwrite, reuse: false, summary: &summary, progress: progress)
        }
        return summary
    }

    private func pass(
        _ records: [Record], to path: String, overwrite: Bool, reuse: Bool, summary: inout UpdateApplier.Summary, progress: ((Int, Int) -> Void)?
    ) throws {
        let writer = try ArchiveWriter(path: path, options: .init(overwrite: overwrite, recipe: recipe))
        writer.metadata = metadata
        var jobs: [ApplyPipeline.Job] = []
        var bodyRecords: [Int] = []
        for (index, record) in records.enumerated() {
            guard let job = record.job else { continue }
            jobs.append(job)
            bodyRecords.append(index)
        }
        let pipeline = ApplyPipeline(
            jobs: jobs, level: recipe.level, dictionaryInterval: recipe.dictionaryInterval, zstdLevel: recipe.zstdLevel, reuseStoredChunks: reuse)
        try writer.failing {
            var added = 0
            func copyNext() throws {
                try writer.copy(records[added].record, from: records[added].reader)
                added += 1
                progress?(added, records.count)
            }
            try pipeline.run(workers: workers > 0 ? workers : ProcessInfo.processInfo.activeProcessorCount) { body, output in
                while added < bodyRecords[body] { try copyNext() }
                guard case .response(var response) = records[added].record, case .prepared(let prepared, let reused) = output else {
                    try copyNext()
                    return
                }
                response.body = try writer.addBody(prepared).reference
                try writer.add(response)
                summary.chunksReused += reused
                summary.chunksCoded += prepared.chunks.count - reused
                added += 1
                progress?(added, records.count)
            }
            while added < records.count { try copyNext() }
        }
        try writer.finish(expected: expected, appendix: appendix)
    }
}
