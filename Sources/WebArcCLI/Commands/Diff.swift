import ArgumentParser
import Foundation
import WebArc
import WebArcCLISupport

struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Write an update archive: only what changed from an old archive to a new one.",
        discussion: """
              webarc diff site-1.webarc site-2.webarc -o site-1-to-2.webarc
              webarc diff update-1.webarc site-1.webarc site-3.webarc -o update-2.webarc
              webarc diff site-1.webarc site-2/ -o site-1-to-2.webarc
              webarc diff site-1.webarc site-2.webarc --compact -o site-1-to-2.webarcu

            The update holds the records of every URL that is new or changed, a tombstone for \
            every URL the new archive dropped, and only the bodies the old archive does not have; a \
            body that changed a little (a version stamped into every page) is stored as a delta \
            against its previous version, and a page new under its URL (added as an edited copy \
            of another, or renamed and edited) as a delta against the most similar page the old \
            archive has. A changed URL whose body stayed the same (only headers such as \
            Last-Modified differ, as after copying or rebuilding a site) is counted as "headers \
            only" (headerOnlyURLs in --json): the update holds its record but no body bytes; \
            pack with SOURCE_DATE_EPOCH or --mtime to avoid such changes. Unchanged URLs fall \
            through to the old archive. It names \
            the new archive by digest, so `webarc apply OLD UPDATE -o NEW` writes the new archive \
            again byte for byte (its signatures included), and `webarc serve UPDATE OLD` serves it \
            layered without applying.

            All archives but the last are the old stack, top first (an update, then the archives \
            it goes over); the update is made over all of them. Before it is renamed into place the \
            update is applied once to a temporary file to check that it gives the new archive \
            (--no-check skips that). The new archive must be a plain archive written by webarc 2.1 \
            or later (it records how it was written); a folder is packed with pack's defaults first, \
            SOURCE_DATE_EPOCH included (for pack's options, use `webarc pack NEW_DIR --base \
            OLD.webarc -o UPDATE.webarc`).

            --compact writes the update's transport form instead (Spec/compact-update.md; \
            extension .webarcu): only what a kiosk holding the old archive cannot compute — the \
            changed keys by number, their records without the fields the bodies give, and the new \
            bodies compressed together against their previous versions — for a metered link. It \
            is not served: `webarc apply OLD U.webarcu -o NEW` writes the new archive (checked by \
            digest), `webarc apply OLD U.webarcu --layer -o U.webarc` the update archive this \
            command writes without --compact, for `webarc serve U.webarc OLD`. Each of its sections \
            holds at most 128 MiB: a larger change (the records of several hundred thousand pages) \
            is refused with exit 64, as soon as it is found; the update archive carries any change.
            \(ExitCodes.helpText)
            """
    )

    @Argument(help: ArgumentHelp("The old archive (or stack, top first), then the new archive.", valueName: "archive"))
    var archives: [String]

    @Option(name: .shortAndLong, help: "The update archive to write.")
    var output: String

    @Flag(name: .shortAndLong, help: "Replace the output if it exists.")
    var force = false

    @Flag(help: "Write a compact update (the transport form, .webarcu) instead of an update archive.")
    var compact = false

    @Flag(help: "Do not apply the update to a temporary file to check it.")
    var noCheck = false

    @Flag(name: .shortAndLong, help: "No progress or summary on stderr.")
    var quiet = false

    @Flag(help: "Print a JSON summary on stdout.")
    var json = false

    @OptionGroup var search: SearchIndexing

    func validate() throws {
        guard archives.count >= 2 else { throw ValidationError("name the old archive and the new archive") }
    }

    func run() throws {
        search.apply()
        // One arena, as apply runs: the check is an apply (the limit binds only before threads start).
        MallocTuning.useOneArena()
        MallocTuning.returnFreeMemoryPeriodically()
        let started = Date()
        let newPath = try newArchivePath()
        defer { if newPath != archives.last! { try? FileManager.default.removeItem(atPath: newPath) } }
        if compact {
            let (old, new) = try openInputs(newPath: newPath)
            try runCompact(old: old, new: new, started: started)
            return
        }
        let (summary, newSize) = try writeUpdate(newPath: newPath)
        if !noCheck {
            MallocTuning.returnFreeMemory()
            let check = ApplyCheck(output: output, bases: Array(archives.dropLast()))
            try check.run(quiet: quiet)
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? UInt64) ?? 0
        let seconds = Date().timeIntervalSince(started)
        if json {
            Output.json(
                [
                    "update": output, "updateBytes": size, "newArchiveBytes": newSize,
                    "unchangedURLs": summary.unchangedKeys,
                    "changedURLs": summary.changedKeys, "headerOnlyURLs": summary.headerOnlyKeys,
                    "deletedURLs": summary.deletedKeys,
                    "bodiesStored": summary.statistics.bodiesStored,
                    "storedBodyBytes": summary.statistics.storedBytes, "similarBodies": summary.similarBodies,
                    "searchDocumentsReused": summary.searchDocumentsReused, "searchRebuilt": summary.searchRebuilt,
                    "checked": !noCheck,
                    "seconds": seconds,
                ] as [String: Any])
        } else if !quiet {
            Output.error(
                String(
                    format: "%@: %d changed%@, %d deleted, %d unchanged URLs; %@ (the new archive is %@)%@ in %.1f s",
                    output,
                    summary.changedKeys, Self.headerOnlyNote(summary.headerOnlyKeys), summary.deletedKeys,
                    summary.unchangedKeys,
                    ProgressReporter.size(size),
                    ProgressReporter.size(newSize), noCheck ? "" : ", checked", seconds))
        }
    }
}

extension Diff {
    /// The new archive: the last argument, or an archive packed from it beside the output when it
    /// is a folder (the caller removes that one).
    private func newArchivePath() throws -> String {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: archives.last!, isDirectory: &isFolder), isFolder.boolValue
        else { return archives.last! }
        let newPath = OutputFile.intermediatePath(beside: output, purpose: "new")
        do {
            var options = SitePacker.Options(overwrite: true)
            options.lastModified = try SourceDateEpoch.lastModified(mtime: nil)
            _ = try SitePacker(options: options).pack(folder: archives.last!, to: newPath)
        } catch let failure as SitePacker.Failure {
            throw CommandFailure("\(archives.last!): \(failure.description)", code: ExitCodes.dataError)
        }
        return newPath
    }

    /// The old archives as a stack and the new archive, opened.
    private func openInputs(newPath: String) throws -> (LayerStack, ArchiveReader) {
        // The check applies the update, which reads every body of the old archives, and the new
        // archive's changed bodies are read: a URL is downloaded once rather than read body by body.
        let old = try ArchiveOpening.stack(Array(archives.dropLast()), readingAll: true)
        return (old, try ArchiveOpening.open(newPath, readingAll: true))
    }

    /// Writes the servable update and returns its summary and the new archive's size. The archives
    /// it reads, with the pages and bodies they hold, are let go on return, before the check opens
    /// its own.
    private func writeUpdate(newPath: String) throws -> (UpdateBuilder.Summary, UInt64) {
        let (old, new) = try openInputs(newPath: newPath)
        let progress = ProgressReporter(label: "comparing", quiet: quiet, unit: "URLs")
        let summary = try withFile(output) {
            try UpdateBuilder(old: old, new: new).write(to: output, overwrite: force) { done, total in
                progress.update(items: done, totalItems: total, bytes: 0, totalBytes: 0)
            }
        }
        progress.finish()
        return (summary, new.fileSize)
    }

    /// " (N headers only)" after the changed count when some changed URLs kept their bodies.
    static func headerOnlyNote(_ count: Int) -> String { count > 0 ? " (\(count) headers only)" : "" }

    /// `--compact`: writes the compact update, checks it by applying it to a temporary file.
    private func runCompact(old: LayerStack, new: ArchiveReader, started: Date) throws {
        let progress = ProgressReporter(label: "comparing", quiet: quiet, unit: "URLs")
        let summary = try withFile(output) {
            try CompactUpdateBuilder(old: old, new: new).write(to: output, overwrite: force) { done, total in
                progress.update(items: done, totalItems: total, bytes: 0, totalBytes: 0)
            }
        }
        progress.finish()
        if !noCheck { try ApplyCheck(output: output, bases: Array(archives.dropLast())).runCompact(old) }
        let seconds = Date().timeIntervalSince(started)
        if json {
            Output.json(
                [
                    "update": output, "form": "compact", "updateBytes": summary.bytes, "newArchiveBytes": new.fileSize,
                    "unchangedURLs": summary.unchangedKeys, "changedURLs": summary.changedKeys,
                    "headerOnlyURLs": summary.headerOnlyKeys,
                    "addedURLs": summary.addedKeys,
                    "deletedURLs": summary.deletedKeys, "newBodies": summary.newBodies,
                    "newBodyBytes": summary.newBodyBytes,
                    "similarBodies": summary.similarBodies, "indexBytes": summary.indexBytes,
                    "recordsBytes": summary.recordsBytes,
                    "bodiesBytes": summary.bodiesBytes, "checked": !noCheck, "seconds": seconds,
                ] as [String: Any])
        } else if !quiet {
            Output.error(
                String(
                    format:
                        "%@: %d changed%@, %d added, %d deleted, %d unchanged URLs; compact update of %@ (the new archive is %@)%@ in %.1f s",
                    output, summary.changedKeys, Self.headerOnlyNote(summary.headerOnlyKeys), summary.addedKeys,
                    summary.deletedKeys, summary.unchangedKeys,
                    ProgressReporter.size(UInt64(summary.bytes)), ProgressReporter.size(new.fileSize),
                    noCheck ? "" : ", checked", seconds))
        }
    }
}

/// Applies a fresh update to a temporary file beside it and removes it: proof that the update
/// gives its target. On failure the update is removed too, so no unusable update is left.
struct ApplyCheck {
    let output: String
    let bases: [String]

    /// The same for a compact update over `old` (the bases, opened).
    func runCompact(_ old: LayerStack) throws {
        let temporary = OutputFile.intermediatePath(beside: output, purpose: "check")
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        do {
            _ = try withFile(output) {
                try CompactApplier(update: output, bases: old).write(to: temporary, overwrite: true)
            }
        } catch {
            try? FileManager.default.removeItem(atPath: output)
            throw error
        }
    }

    func run(quiet: Bool) throws {
        let temporary = OutputFile.intermediatePath(beside: output, purpose: "check")
        defer { try? FileManager.default.removeItem(atPath: temporary) }
        do {
            // Applying reads every body of the bases: a URL is downloaded once, not body by body.
            let readers =
                try [ArchiveOpening.open(output)] + bases.map { try ArchiveOpening.open($0, readingAll: true) }
            let stack = try withFile(output) { try LayerStack(readers) }
            UpdateApplier.limitCaches(of: stack)
            _ = try withFile(output) { try UpdateApplier(stack: stack).write(to: temporary, overwrite: true) }
        } catch {
            try? FileManager.default.removeItem(atPath: output)
            throw error
        }
    }
}
