import Foundation
import WebArc
import WebArcReplay

/// Imports a ZIM file (Kiwix's offline format) into a new archive.
///
/// ```swift
/// let summary = try ZimImporter(options: ZimImportOptions()).run(input: "python.zim", output: "python.webarc")
/// print(summary.responses, summary.redirects, summary.startURL ?? "")
/// ```
///
/// Every item becomes a GET response at the base URL plus its path, with its ZIM mime type as
/// `Content-Type`; every redirect entry a redirect record; the main page also answers at the base
/// URL and is the start URL; the ZIM's metadata become archive metadata entries `zim:NAME`
/// (an illustration as a `data:` URL). A ZIM made by warc2zim 1.x goes back to the crawled URLs,
/// statuses and headers it keeps (`Warc2zimMapping`).
///
/// Items are read in cluster order, so libzim decompresses each cluster once; one item at a time
/// is in memory (at most ``ZimImportOptions/maxEntrySize``, with libzim's cache of decompressed
/// clusters), and the archive writer keeps its records until it finishes. Nothing appears at the
/// output path unless the import succeeds. Spec: `Spec/interop.md` §13.
public struct ZimImporter: Sendable {
    /// Base URL, limits, compression, overwriting.
    public var options: ZimImportOptions

    /// Makes an importer.
    public init(options: ZimImportOptions = ZimImportOptions()) {
        self.options = options
    }

    /// Called after each entry with the entries done and their total.
    public typealias Progress = (_ entries: Int, _ totalEntries: Int) -> Void

    /// Reads the ZIM at `input` and writes one archive at `output`.
    ///
    /// - Throws: ``ZimError``: `notAZim`, `truncated`, `badHeader` before libzim opens the file;
    ///   `libzim` for what it cannot read (an entry's only with ``ZimImportOptions/skipBad`` off);
    ///   `entryTooLarge`; `archive` wrapping the writer's error (`outputExists` when `output`
    ///   exists and overwriting is off).
    public func run(input: String, output: String, progress: Progress? = nil) throws -> ZimImportSummary {
        if !options.overwrite && access(output, F_OK) == 0 {
            throw ZimError.archive(.outputExists(path: output), path: output)
        }
        var writerOptions = ArchiveWriter.Options(
            overwrite: options.overwrite, compressionLevel: options.compressionLevel,
            dictionaryInterval: options.dictionaryInterval,
            zstdLevel: options.zstdLevel)
        writerOptions.dictionaryPlacement = options.dictionaryPlacement
        writerOptions.groups = options.groups
        // The output's temporary first: an output that cannot be made fails before the ZIM is read,
        // and `webarc` finds the temporary of a webarc-zim that libzim crashed (it removes it).
        let writer: ArchiveWriter
        do {
            writer = try ArchiveWriter(path: output, options: writerOptions)
        } catch let error as WebArcError {
            throw ZimError.archive(error, path: output)
        }
        var summary = ZimImportSummary()
        do {
            let zim = try ZimArchive(path: input)
            let metadata = try ZimMetadata(reading: zim)
            let paths = ZimPaths(
                baseURL: options.baseURL ?? metadata.text(ZimPaths.baseURLMetadata) ?? "http://localhost/")
            summary.baseURL = paths.baseURL
            var listing = try list(zim, summary: &summary)
            let mapping: any ZimEntryMapping
            if let warc2zim = try Warc2zimMapping(
                zim, metadata: metadata, headerEntries: listing.headerEntries, paths: paths, options: options)
            {
                mapping = warc2zim
                summary.fromWarc2zim = true
                listing.items.removeAll { warc2zim.headerEntries.contains($0.index) }
            } else {
                mapping = PlainZimMapping(
                    paths: paths, urls: metadata.urlTable, copies: metadata.copies, empties: metadata.empties,
                    oldScheme: !zim.hasNewNamespaceScheme)
            }
            let total = listing.items.count + listing.redirects.count
            var written = Written()
            try writeItems(
                listing.items.map(\.index), of: zim, mapping: mapping, to: writer, written: &written, summary: &summary
            ) {
                progress?($0, total)
            }
            for (number, index) in listing.redirects.enumerated() {
                try write(redirect: index, of: zim, mapping: mapping, to: writer, written: &written, summary: &summary)
                progress?(listing.items.count + number + 1, total)
            }
            let extra = mapping.extraRecords { written.bodies[$0] != nil }
            summary.leftOut += extra.leftOut
            for record in extra.records {
                try add(extra: record, to: writer, written: &written, summary: &summary)
            }
            summary.startURL = try startURL(
                zim, mapping: mapping, paths: paths, metadata: metadata, writer: writer, written: &written,
                summary: &summary)
            writer.metadata = ArchiveMetadata(
                creator: WebArcVersion.creator("import"), startURL: summary.startURL,
                baseURL: summary.fromWarc2zim ? nil : paths.baseURL,
                entries: [ArchiveMetadata.Entry("source", "\((input as NSString).lastPathComponent) (ZIM)")]
                    + metadata.archiveEntries)
            summary.bodiesStored = writer.statistics.bodiesStored
            summary.rawBodyBytes = writer.statistics.rawBytes
            try writer.finish()
            summary.storedBodyBytes = writer.statistics.storedBytes
        } catch let error as WebArcError {
            writer.cancel()
            throw ZimError.archive(error, path: output)
        } catch {
            writer.cancel()
            throw error
        }
        return summary
    }

    /// The user entries: items in cluster order (libzim then decompresses each cluster once),
    /// redirects, and warc2zim's `H/` entries.
    private struct Listing {
        var items: [(cluster: UInt32, index: UInt32)] = []
        var redirects: [UInt32] = []
        var headerEntries: [UInt32] = []
    }

    private func list(_ zim: ZimArchive, summary: inout ZimImportSummary) throws -> Listing {
        var listing = Listing()
        listing.items.reserveCapacity(zim.userEntries.count)
        for index in zim.userEntries {
            guard let entry = try readable({ try zim.entry(index, item: true, size: false) }, summary: &summary) else {
                continue
            }
            summary.entries += 1
            if entry.isRedirect {
                listing.redirects.append(index)
            } else {
                listing.items.append((entry.cluster, index))
                if entry.path.hasPrefix("H/") { listing.headerEntries.append(index) }
            }
        }
        listing.items.sort { ($0.cluster, $0.index) < ($1.cluster, $1.index) }
        return listing
    }

    /// What has been written: bodies by entry path (for the main page and warc2zim revisits), URLs.
    struct Written {
        var bodies: [String: StoredBody] = [:]
        var urls = Set<String>()
    }

    private func write(
        redirect index: UInt32, of zim: ZimArchive, mapping: any ZimEntryMapping, to writer: ArchiveWriter,
        written: inout Written,
        summary: inout ZimImportSummary
    ) throws {
        guard let entry = try readable({ try zim.entry(index, item: false, size: false) }, summary: &summary),
            let targetIndex = entry.redirectIndex,
            let target = try readable({ try zim.entry(targetIndex, item: false, size: false) }, summary: &summary)
        else { return }
        guard let url = mapping.url(forPath: entry.path), let targetURL = mapping.url(forPath: target.path) else {
            summary.leftOut.append("\(entry.path): a redirect to \(target.path), outside the archive's URLs")
            return
        }
        if mapping.isCopy(entry.path),
            let item = try readable({ try Self.item(following: index, in: zim) }, summary: &summary) ?? nil,
            let body = written.bodies[item.path],
            case .response(_, let status, let reason, var headers, let date) = mapping.target(of: item)
        {
            if let length = headers.firstIndex(where: { $0.name.lowercased() == "content-length" }) {
                headers[length].value = String(body.length)
            }
            try add(
                extra: .response(
                    url: url, status: status, reason: reason, headers: headers, date: date, bodyPath: item.path),
                to: writer, written: &written, summary: &summary)
            return
        }
        // A ZIM redirect has no status; Kiwix readers answer it with 302.
        try add(
            .redirect(
                RedirectRecord(
                    request: RequestRecord(url: url), status: 302, target: targetURL,
                    headers: [HTTPHeader("Location", targetURL)])),
            to: writer, written: &written, summary: &summary)
    }

    /// Adds a record no ZIM item stands for; a response's body takes its own position again, as
    /// every response's does (spec Appendix C step 13).
    private func add(
        extra: ZimExtraRecord, to writer: ArchiveWriter, written: inout Written, summary: inout ZimImportSummary
    ) throws {
        switch extra {
        case .redirect(let redirect):
            try add(.redirect(redirect), to: writer, written: &written, summary: &summary)
        case .response(let url, let status, let reason, let headers, let date, let bodyPath):
            let body =
                try bodyPath.flatMap { written.bodies[$0] }.map { try writer.addBody(repeating: $0) }
                ?? writer.addBody([UInt8]())
            let media = ContentTypeParts.of(headers.value(for: "Content-Type"))
            try add(
                .response(
                    ResponseRecord(
                        request: RequestRecord(url: url), status: status, reason: reason, headers: headers,
                        mimeType: media.mimeType,
                        textEncoding: media.textEncoding, body: body, captureDate: date)), to: writer,
                written: &written, summary: &summary)
        }
    }

    func add(
        _ record: ArchiveRecord, to writer: ArchiveWriter, written: inout Written, summary: inout ZimImportSummary
    ) throws {
        switch record {
        case .response(let response):
            try writer.add(response)
            summary.responses += 1
        case .redirect(let redirect):
            try writer.add(redirect)
            summary.redirects += 1
        case .tombstone:
            return
        }
        written.urls.insert(record.request.url)
    }

    /// The start URL: for a plain ZIM the base URL, answering with the main page's body (as a
    /// packed folder's index.html answers at its folder) unless an entry is there already, or the
    /// main page's own URL; for warc2zim, its `Source` when that was imported.
    private func startURL(
        _ zim: ZimArchive, mapping: any ZimEntryMapping, paths: ZimPaths, metadata: ZimMetadata, writer: ArchiveWriter,
        written: inout Written, summary: inout ZimImportSummary
    ) throws -> String? {
        if summary.fromWarc2zim {
            return metadata.text("Source").flatMap { written.urls.contains($0) ? $0 : nil }
        }
        guard let main = try readable({ try mainItem(zim) }, summary: &summary) ?? nil,
            let body = written.bodies[main.path],
            let mainURL = mapping.url(forPath: main.path)
        else { return nil }
        guard !written.urls.contains(paths.baseURL), mainURL != paths.baseURL else { return mainURL }
        let repeated = try writer.addBody(repeating: body)
        let type = PlainZimMapping.contentType(main.mimeType ?? "application/octet-stream")
        let media = ContentTypeParts.of(type)
        try add(
            .response(
                ResponseRecord(
                    request: RequestRecord(url: paths.baseURL), status: 200, reason: "OK",
                    headers: [HTTPHeader("Content-Type", type), HTTPHeader("Content-Length", String(body.length))],
                    mimeType: media.mimeType,
                    textEncoding: media.textEncoding, body: repeated)), to: writer, written: &written, summary: &summary
        )
        return paths.baseURL
    }

    /// The item the main page is, its redirects followed.
    private func mainItem(_ zim: ZimArchive) throws -> ZimArchive.Entry? {
        guard let index = try zim.mainEntry() else { return nil }
        return try Self.item(following: index, in: zim)
    }

    /// The user item entry `index` is or leads to through redirects (at most 50, as libzim follows).
    private static func item(following start: UInt32, in zim: ZimArchive) throws -> ZimArchive.Entry? {
        var index = start
        for _ in 0..<50 {
            let entry = try zim.entry(index, item: true, size: false)
            guard let next = entry.redirectIndex else { return zim.userEntries.contains(index) ? entry : nil }
            index = next
        }
        return nil
    }

    /// `body()`, or nil with the error listed when it is an entry's libzim error and bad entries are skipped.
    func readable<T>(_ body: () throws -> T, summary: inout ZimImportSummary) throws -> T? {
        do {
            return try body()
        } catch let error as ZimError {
            guard options.skipBad, case .libzim(_, .some, _) = error else { throw error }
            summary.skipped.append(error)
            return nil
        }
    }
}
