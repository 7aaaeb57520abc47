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

            The last archive is the update; the ones before it are the archives it was made over \
            (as given to `webarc diff`, top first). The update is checked first: its bases by \
            archive digest (a wrong or damaged base is refused before anything is written) and, \
            with --trust, its signature. The result is written to a temporary file, checked \
            against the archive digest the update names, then renamed into place: the output is \
            the publisher's new archive or nothing, never half an update. The publisher's \
            signatures on the new archive come with it, so `webarc verify --trust` accepts it.
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

    @OptionGroup var trust: TrustOptions

    func validate() throws {
        guard archives.count >= 2 else { throw ValidationError("name the base archive and the update") }
    }

    func run() throws {
        let started = Date()
        let update = archives.last!
        let stack = try ArchiveOpening.stack([update] + archives.dropLast())
        if let policy = try trust.policy() {
            do {
                _ = try stack.top.checkTrust(policy)
            } catch let error as WebArcError {
                if case .io = error { throw CommandFailure(error, file: update) }
                throw CommandFailure("\(update): refused, not trusted (\(error.code)): \(error.description)", code: ExitCodes.dataError)
            }
        }
        let progress = ProgressReporter(label: "applying", quiet: quiet, unit: "records")
        let summary = try withFile(update) {
            try UpdateApplier(stack: stack).write(to: output, overwrite: force) { done, total in
                progress.update(items: done, totalItems: total, bytes: 0, totalBytes: 0)
            }
        }
        progress.finish()
        let result = try ArchiveOpening.open(output)
        let digest = SignatureText.hex(result.archiveDigest)
        let seconds = Date().timeIntervalSince(started)
        if json {
            Output.json([
                "output": output, "archiveDigest": digest, "bytes": result.fileSize, "seconds": seconds,
                "chunksReused": summary.chunksReused, "chunksCoded": summary.chunksCoded, "codedAgain": summary.codedAgain,
            ] as [String: Any])
        } else if !quiet {
            Output.error(String(format: "%@: %@, archive digest %@, in %.1f s", output, ProgressReporter.size(result.fileSize), digest, seconds))
        }
    }
}
