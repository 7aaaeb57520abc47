import Foundation
import WebArc
import WebArcReplay

/// Imports WARC, HAR and `.webarchive` files into one new archive.
///
/// ```swift
/// let summary = try ArchiveImporter(options: ImportOptions(keep: .latest)).run(inputs: ["crawl.warc.gz"], output: "site.webarc")
/// print(summary.records, summary.bodiesStored)
/// for note in summary.notes { print(note) }
/// ```
///
/// Inputs are read in two passes: the first reads every capture's headers and checks its
/// framing, the duplicates rule (``DuplicatePolicy``) picks the captures to keep, and the second
/// stores only their bodies. Bodies equal across inputs are stored once. Nothing appears at the
/// output path unless the whole import succeeds. Spec: `Spec/interop.md`.
public struct ArchiveImporter: Sendable {
    /// What to keep, whether to skip bad records, whether to replace the output.
    public var options: ImportOptions

    /// Makes an importer.
    public init(options: ImportOptions = ImportOptions()) {
        self.options = options
    }

    /// Reads every input and writes one archive at `output`.
    ///
    /// - Throws: ``InteropError``: the first bad record (unless ``ImportOptions/skipBad``),
    ///   `unknownFormat`, `badJSON`, `badPropertyList`, `io`, or `archive` wrapping the writer's
    ///   error (`outputExists` when `output` exists and overwriting is off).
    public func run(inputs: [String], output: String) throws -> ImportSummary {
        try InteropOutputFile.checkAbsent(output, overwrite: options.overwrite)
        let context = ImportContext(options: options)
        var providers: [BodyProvider] = []
        var warc: WARCImporter?
        var captures: [Capture] = []
        var summary = ImportSummary()
        for path in inputs {
            let file = try InputFile(path: path)
            let format = try InputFormat.detect(file)
            context.metadataEntries.append(
                ArchiveMetadata.Entry("source", "\((path as NSString).lastPathComponent) (\(format))"))
            let records: Int
            switch format {
            case .warc, .warcGzip, .wacz:
                let importer = warc ?? WARCImporter(sourceID: providers.count)
                if warc == nil {
                    warc = importer
                    providers.append(importer)
                }
                records =
                    format == .wacz
                    ? try WACZImporter.scan(file, into: importer, context: context)
                    : try importer.scan(path: path, isGzip: format == .warcGzip, context: context)
            case .har, .harGzip, .webarchive, .webarchiveGzip:
                let importer: BufferedImporter =
                    format == .har || format == .harGzip
                    ? HARImporter(sourceID: providers.count) : WebArchiveImporter(sourceID: providers.count)
                providers.append(importer)
                let contents =
                    format.isGzip ? try file.readAllGzip(limit: options.maxDecompressedBytes) : try file.readAll()
                let read = try importer.read(contents, path: path, isGzip: format.isGzip, context: context)
                records = read.records
                captures += read.captures
            case .zim:
                throw InteropError.zimNeedsLibzim(path: path)
            }
            summary.inputs.append(ImportSummary.Input(path: path, format: format, records: records, captures: 0))
        }
        if let warc { captures += try warc.captures(context: context) }
        captures.sort { $0.order < $1.order }
        for index in summary.inputs.indices {
            let path = summary.inputs[index].path
            // A WACZ's captures are located in its WARCs, `crawl.wacz!/archive/…`.
            summary.inputs[index].captures = captures.count {
                $0.location.file == path || $0.location.file.hasPrefix(path + "!/")
            }
        }
        let kept = CaptureSelection.select(captures, policy: options.keep).map { captures[$0] }
        summary.duplicatesDropped = captures.count - kept.count
        let writer: ArchiveWriter
        do {
            var writerOptions = ArchiveWriter.Options(
                overwrite: options.overwrite, dictionaryInterval: options.dictionaryInterval)
            writerOptions.dictionaryPlacement = options.dictionaryPlacement
            writer = try ArchiveWriter(path: output, options: writerOptions)
        } catch let error as WebArcError {
            throw InteropError.archive(error, path: output)
        }
        do {
            try write(kept, providers: providers, to: writer, context: context, summary: &summary)
            summary.startURL = context.startURL ?? Self.firstPage(kept)
            writer.metadata = ArchiveMetadata(
                creator: WebArcVersion.creator("import"), startURL: summary.startURL, entries: context.metadataEntries)
            summary.bodiesStored = writer.statistics.bodiesStored
            summary.storedBodyBytes = writer.statistics.storedBytes
            try writer.finish()
        } catch let error as WebArcError {
            writer.cancel()
            throw InteropError.archive(error, path: output)
        } catch {
            writer.cancel()
            throw error
        }
        summary.skipped = context.skipped
        summary.notes = context.notes
        return summary
    }

    private func write(
        _ kept: [Capture], providers: [BodyProvider], to writer: ArchiveWriter, context: ImportContext,
        summary: inout ImportSummary
    ) throws {
        var payloads: [BodyID: StoredPayload] = [:]
        var positions = ResponsePositions(kept: kept)
        for run in Self.bodyRuns(kept) {
            let stored = try providers[run.source].storeBodies(run.indices, in: writer, context: context) {
                index, storedInRun in
                try positions.before(storing: BodyID(source: run.source, index: index), writer: writer) { body in
                    payloads[body] ?? (body.source == run.source ? storedInRun[body.index] : nil)
                }
            }
            for (index, payload) in stored {
                payloads[BodyID(source: run.source, index: index)] = payload
            }
        }
        try positions.finish(writer: writer) { payloads[$0] }
        var distinct = Set<BodyReference>()
        for (number, capture) in kept.enumerated() {
            switch capture.kind {
            case .redirect(let status, let target, let headers):
                try writer.add(
                    RedirectRecord(
                        request: capture.request, status: status, target: target, headers: headers,
                        captureDate: capture.captureDate))
                summary.redirects += 1
            case .response(let status, let reason, let headers):
                // Every response took its position above (a first use when its body was stored).
                guard let payload = positions.payload(of: number, payloads: payloads) else {
                    throw WebArcError.invalidRecord(
                        url: capture.request.url, reason: "the response took no body position")
                }
                // A bodiless answer (HEAD, 304) keeps the length and coding of the representation it describes.
                let stored =
                    capture.isBodiless
                    ? headers.removing("Transfer-Encoding")
                    : ContentCoding.headers(headers, remaining: payload.remaining, length: payload.body.length)
                let media = ContentTypeParts.of(stored.value(for: "Content-Type"))
                try writer.add(
                    ResponseRecord(
                        request: capture.request, status: status, reason: reason, headers: stored,
                        mimeType: media.mimeType ?? capture.fallbackMIMEType,
                        textEncoding: media.textEncoding ?? capture.fallbackTextEncoding,
                        body: payload.body, captureDate: capture.captureDate))
                summary.responses += 1
                summary.bodiesReferenced += 1
                summary.rawBodyBytes += payload.body.length
                if distinct.insert(payload.body.reference).inserted { summary.distinctBodyBytes += payload.body.length }
            }
        }
    }

    /// The bodies the kept responses answer with, in the order the records first use them (spec
    /// Appendix C step 2: bodies in the records' insertion order), as runs of one input each: the
    /// order in which `webarc apply` writes the archive again, so that an update between two
    /// imports gives its target byte for byte (``ResponsePositions`` gives the other responses
    /// their positions between them). A redirect's body is not stored: no record names it.
    static func bodyRuns(_ kept: [Capture]) -> [(source: Int, indices: [Int])] {
        var seen = Set<BodyID>()
        var runs: [(source: Int, indices: [Int])] = []
        for capture in kept {
            guard case .response = capture.kind, let body = capture.body, seen.insert(body).inserted else { continue }
            if runs.last?.source == body.source {
                runs[runs.count - 1].indices.append(body.index)
            } else {
                runs.append((body.source, [body.index]))
            }
        }
        return runs
    }

    /// The first kept GET 200 HTML response, as the page to open first.
    static func firstPage(_ captures: [Capture]) -> String? {
        captures.first { capture in
            guard capture.request.method == "GET", case .response(200, _, let headers) = capture.kind else {
                return false
            }
            return ContentTypeParts.of(headers.value(for: "Content-Type")).mimeType == "text/html"
        }?.request.url
    }
}
