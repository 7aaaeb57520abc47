import ArgumentParser
import Foundation
import WebArc
import WebArcCLISupport

struct Apply: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "apply",
        abstract: "Apply an update archive: write the new archive it names, byte for byte.",
        discussion: """
              webarc apply site-1.webarc site-1-to-2.webarc -o site-2.webarc
              webarc apply site-1.webarc site-1-to-2.webarc -o site-2.webarc --trust publisher.pub
              webarc apply site-1.webarc site-1-to-2.webarcu -o site-2.webarc
              webarc apply site-1.webarc site-1-to-2.webarcu --layer -o site-1-to-2.webarc

            The last archive is the update; the ones before it are the archives it was made over \
            (as given to `webarc diff`, top first). The update is checked first: its bases by \
            archive digest (a wrong or damaged base is refused before anything is written) and, \
            with --trust, its signature. The result is written to a temporary file, checked \
            against the archive digest the update names (and the digest of its body data, which \
            lets unchanged pages be copied without decoding them; a damaged base chunk then fails \
            that check and a second pass names it), then renamed into place: the output is the \
            publisher's new archive byte for byte or nothing, never half an update. The publisher's \
            signatures on the new archive come with it, so `webarc verify --trust` accepts it.

            A compact update (`webarc diff --compact`, found by its magic) is applied the same \
            way: its bases are checked by digest before anything else is read, a damaged one is \
            refused naming the section and byte, and the result is checked against the digest it \
            names (and with --trust, the publisher's signature it carries) before it is renamed \
            into place. With --layer the output is the update archive `webarc diff` writes for the \
            same old and new archives (same file names), which `webarc serve UPDATE OLD` serves.
            \(ExitCodes.helpText)
            """
    )

    @Argument(help: ArgumentHelp("The base archive(s), top first, then the update.", valueName: "archive"))
    var archives: [String]

    @Option(name: .shortAndLong, help: "The archive to write.")
    var output: String

    @Flag(name: .shortAndLong, help: "Replace the output if it exists.")
    var force = false

    @Flag(name: .shortAndLong, help: "No progress or summary on stderr.")
    var quiet = false

    @Flag(help: "Print a JSON summary on stdout.")
    var json = false

    @Flag(help: "For a compact update: write the update archive (a servable layer) instead of the new archive.")
    var layer = false

    @OptionGroup var trust: TrustOptions

    func validate() throws {
        guard archives.count >= 2 else { throw ValidationError("name the base archive and the update") }
    }

    func run() throws {
        // One arena: each thread's own reserves 64 MiB of address space and keeps what it freed.
        MallocTuning.useOneArena()
        MallocTuning.reuseLargeBlocks()
        MallocTuning.returnFreeMemoryPeriodically()
        let started = Date()
        let update = archives.last!
        let top: ArchiveReader
        switch try ArchiveOpening.archiveOrCompactUpdate(update, readingAll: true) {
        case .archive(let reader): top = reader
        case .compactUpdate(let source): return try runCompact(update: update, source: source, started: started)
        }
        guard !layer else {
            throw CommandFailure(
                "--layer is for a compact update; \(update) is an update archive already", code: ExitCodes.usage)
        }
        let bases = try archives.dropLast().map { try ArchiveOpening.open($0, readingAll: true) }
        let stack = try withFile(update) { try LayerStack([top] + bases) }
        UpdateApplier.limitCaches(of: stack)
        if let policy = try trust.policy() {
            do {
                _ = try stack.top.checkTrust(policy)
            } catch let error as WebArcError {
                if case .io = error { throw CommandFailure(error, file: update) }
                throw CommandFailure(
                    "\(update): refused, not trusted (\(error.code)): \(error.description)", code: ExitCodes.dataError)
            }
        }
        let progress = ProgressReporter(label: "applying", quiet: quiet, unit: "records")
        let summary = try withFile(update) {
            try UpdateApplier(stack: stack).write(to: output, overwrite: force) { done, total in
                progress.update(items: done, totalItems: total, bytes: 0, totalBytes: 0)
            }
        }
        progress.finish()
        let (archiveDigest, fileSize) = try Self.written(summary, at: output)
        let digest = SignatureText.hex(archiveDigest)
        let seconds = Date().timeIntervalSince(started)
        if json {
            Output.json(
                [
                    "output": output, "archiveDigest": digest, "bytes": fileSize, "seconds": seconds,
                    "chunksReused": summary.chunksReused, "chunksCoded": summary.chunksCoded,
                    "codedAgain": summary.codedAgain,
                    "copiedUnchecked": summary.copiedUnchecked, "checkedAgain": summary.checkedAgain,
                    "searchDocumentsReused": summary.searchDocumentsReused, "searchRebuilt": summary.searchRebuilt,
                ] as [String: Any])
        } else if !quiet {
            Output.error(
                String(
                    format: "%@: %@, archive digest %@, in %.1f s", output, ProgressReporter.size(fileSize), digest,
                    seconds))
        }
    }
}

extension Apply {
    /// A compact update: the new archive, or with --layer the update archive, from the bases.
    private func runCompact(update: String, source: any ByteSource, started: Date) throws {
        let bases = try ArchiveOpening.stack(Array(archives.dropLast()), readingAll: true)
        if !force && FileManager.default.fileExists(atPath: output) {
            throw CommandFailure(WebArcError.outputExists(path: output))
        }
        let policy = try trust.policy()
        let direct = !layer && policy == nil
        let newPath = direct ? output : OutputFile.intermediatePath(beside: output, purpose: "new")
        defer { if !direct { try? FileManager.default.removeItem(atPath: newPath) } }
        let progress = ProgressReporter(label: "applying", quiet: quiet, unit: "records")
        let summary = try withFile(update) {
            try CompactApplier(update: update, source: source, bases: bases).write(to: newPath, overwrite: true) {
                done, total in
                progress.update(items: done, totalItems: total, bytes: 0, totalBytes: 0)
            }
        }
        progress.finish()
        // The new archive is opened again only for what reads it: the trust policy, or the update
        // archive built from it; its digest and size are otherwise the target's (``written(_:at:)``).
        var written = try Self.written(summary, at: newPath)
        if policy != nil || layer {
            let result = try ArchiveOpening.open(newPath)
            if let policy {
                do {
                    _ = try result.checkTrust(policy)
                } catch let error as WebArcError {
                    if case .io = error { throw CommandFailure(error, file: update) }
                    throw CommandFailure(
                        "\(update): refused, not trusted (\(error.code)): \(error.description)",
                        code: ExitCodes.dataError)
                }
            }
            if layer {
                _ = try withFile(output) {
                    try UpdateBuilder(old: bases, new: result).write(to: output, overwrite: force)
                }
                let layerArchive = try ArchiveOpening.open(output)
                written = (layerArchive.archiveDigest, layerArchive.fileSize)
            }
        }
        if !layer && !direct {
            // One rename, which replaces an existing output (with --force) in one step: it is the
            // old file or the new one, never neither (the intermediate file lies beside it).
            if !force && FileManager.default.fileExists(atPath: output) {
                throw CommandFailure(WebArcError.outputExists(path: output))
            }
            try FileWriting.rename(newPath, onto: output)
        }
        let digest = SignatureText.hex(written.digest)
        let seconds = Date().timeIntervalSince(started)
        if json {
            Output.json(
                [
                    "output": output, "form": layer ? "layer" : "archive", "archiveDigest": digest,
                    "bytes": written.size,
                    "seconds": seconds, "chunksReused": summary.chunksReused, "chunksCoded": summary.chunksCoded,
                    "codedAgain": summary.codedAgain,
                    "copiedUnchecked": summary.copiedUnchecked, "checkedAgain": summary.checkedAgain,
                    "searchDocumentsReused": summary.searchDocumentsReused, "searchRebuilt": summary.searchRebuilt,
                ] as [String: Any])
        } else if !quiet {
            Output.error(
                String(
                    format: "%@: %@, archive digest %@, in %.1f s", output, ProgressReporter.size(written.size), digest,
                    seconds))
        }
    }

    /// The archive digest and file size of the archive an apply wrote at `path`: the target's,
    /// which the writer checked the result against (no need to open it), or read from the file
    /// when the summary lacks them.
    static func written(_ summary: UpdateApplier.Summary, at path: String) throws -> (digest: [UInt8], size: UInt64) {
        if let digest = summary.archiveDigest, let size = summary.fileSize { return (digest, size) }
        let result = try ArchiveOpening.open(path)
        return (result.archiveDigest, result.fileSize)
    }
}
