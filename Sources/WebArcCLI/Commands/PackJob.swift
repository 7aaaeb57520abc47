import Foundation
import WebArc
import WebArcCLISupport

/// One `webarc pack`, its settings as plain values: what ``Pack`` parses into, and what
/// ``CommandLineEntry`` fills in without the argument parser (whose property wrappers alone cost
/// a fresh process conformance lookups before any file is read).
struct PackJob {
    var folder: String
    var output: String
    var baseURL: String
    var outsideLinks: OutsideLinkPolicy
    var skipUnreadable: Bool
    var level: Int
    var best: Bool
    var zstd: Int?
    /// `--groups`, in KiB; nil: none (`--best`: 2048).
    var groups: Int?
    var dictionaryPlacement: PlacementChoice
    /// Every file's `Last-Modified`, in seconds since 1970 (`--mtime`); nil: each file's time,
    /// clamped to `SOURCE_DATE_EPOCH` when that is set.
    var mtime: Int64?
    /// Archives the output is an update over, top first; empty: a whole archive.
    var bases: [String]
    var compact: Bool
    var force: Bool
    var quiet: Bool
    var json: Bool

    /// Packs, writes the update when there are bases, and reports.
    func run() throws {
        let lastModified = try SourceDateEpoch.lastModified(mtime: mtime)
        MallocTuning.useOneArena()
        MallocTuning.reuseLargeBlocks()
        MallocTuning.backHeapWithHugePages()
        var options = SitePacker.Options(
            baseURL: baseURL, outsideLinks: outsideLinks, skipUnreadable: skipUnreadable, overwrite: force,
            compressionLevel: best ? SitePacker.bestLevel : level,
            zstdLevel: best ? SitePacker.bestZstdLevel : zstd)
        options.groups = groups.map { $0 << 10 } ?? (best ? SitePacker.bestGroups : nil)
        options.dictionaryPlacement = dictionaryPlacement.placement
        options.lastModified = lastModified
        let packer = SitePacker(options: options)
        let progress = ProgressReporter(label: "packing", quiet: quiet)
        let started = Date()
        let summary: SitePacker.Summary
        let packed = bases.isEmpty ? output : OutputFile.intermediatePath(beside: output, purpose: "new")
        defer { if packed != output { try? FileManager.default.removeItem(atPath: packed) } }
        do {
            summary = try packer.pack(folder: folder, to: packed) { files, totalFiles, bytes, totalBytes in
                progress.update(items: files, totalItems: totalFiles, bytes: bytes, totalBytes: totalBytes)
            }
        } catch let failure as SitePacker.Failure {
            progress.finish()
            if case .refused(let problems) = failure {
                for problem in problems { Output.error("webarc: \(folder)/\(problem)") }
            }
            throw CommandFailure("\(folder): \(failure.description)", code: ExitCodes.dataError)
        } catch let error as WebArcError {
            progress.finish()
            throw CommandFailure(error, file: error.code == "output-exists" ? nil : folder)
        }
        progress.finish()
        var updateBytes: UInt64?
        if !bases.isEmpty {
            if !force && FileManager.default.fileExists(atPath: output) {
                throw CommandFailure("\(output) exists: use --force to replace it", code: ExitCodes.cannotCreate)
            }
            // Building and checking the update read every body of the bases (downloaded once by URL).
            let old = try ArchiveOpening.stack(bases, readingAll: true)
            let new = try ArchiveOpening.open(packed)
            if compact {
                _ = try withFile(output) {
                    try CompactUpdateBuilder(old: old, new: new).write(to: output, overwrite: force)
                }
                try ApplyCheck(output: output, bases: bases).runCompact(old)
            } else {
                _ = try withFile(output) { try UpdateBuilder(old: old, new: new).write(to: output, overwrite: force) }
                try ApplyCheck(output: output, bases: bases).run(quiet: quiet)
            }
            updateBytes = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? UInt64) ?? 0
        }
        let seconds = Date().timeIntervalSince(started)
        let stats = summary.statistics
        // The archive's whole size (bodies, index, trailer), as `ls -l` shows it.
        let archiveBytes =
            (try? FileManager.default.attributesOfItem(atPath: packed)[.size] as? UInt64) ?? stats.storedBytes
        if json {
            Output.json(
                [
                    "archive": output, "files": summary.files, "responses": summary.responses,
                    "redirects": summary.redirects,
                    "distinctBodies": stats.bodiesStored, "rawBytes": stats.rawBytes,
                    "storedBodyBytes": stats.storedBytes,
                    "archiveBytes": archiveBytes,
                    "seconds": seconds, "skipped": summary.skipped.map(\.description),
                    "startURL": summary.startURL ?? NSNull(),
                    "updateBytes": updateBytes.map { $0 as Any } ?? NSNull(),
                ] as [String: Any])
        }
        guard !quiet else { return }
        for skipped in summary.skipped { Output.error("webarc: skipped \(folder)/\(skipped)") }
        let counts = [
            Plural.count(summary.responses, "response"), Plural.count(summary.redirects, "redirect"),
            Plural.count(stats.bodiesStored, "distinct body", plural: "distinct bodies"),
        ]
        Output.error(
            "packed \(Plural.count(summary.files, "file")) (\(counts.joined(separator: ", "))) into \(output): "
                + "\(ProgressReporter.size(stats.rawBytes)) of files → \(ProgressReporter.size(archiveBytes)) archive in "
                + String(format: "%.2fs", seconds))
        if let updateBytes {
            Output.error(
                "wrote the update over \(bases.joined(separator: ", ")) to \(output): \(ProgressReporter.size(updateBytes)), checked"
            )
        }
    }
}
