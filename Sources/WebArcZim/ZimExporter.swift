import Foundation
import WebArc
import WebArcHTML

/// Exports an archive as a ZIM file through libzim's writer, so that any Kiwix reader plays it.
///
/// ```swift
/// let summary = try ZimExporter().run(archive: "site.webarc", output: "site.zim")
/// print(summary.items, summary.redirects, summary.mainPath ?? "")
/// ```
///
/// Every GET response becomes an item at its URL's path below the base URL (percent-decoded, as
/// a Kiwix reader decodes a request), with its `Content-Type` as mime type and, for an HTML
/// page, its `<title>`, listed as a front article and in the full-text index; every redirect
/// whose target is exported a redirect entry; the start URL the main page. A ZIM holds no
/// status, headers, dates, methods or second captures: those are dropped (the summary counts
/// the statuses other than 200). URLs the path rule does not give back are listed in the
/// `WebArc-URLs` metadata, and `WebArc-BaseURL` names the base, so that an import gives every
/// URL back. Nothing appears at the output path unless the export succeeds.
/// Spec: `Spec/interop.md` §13.
public struct ZimExporter: Sendable {
    /// Metadata choices, the index, overwriting.
    public var options: ZimExportOptions

    /// Makes an exporter.
    public init(options: ZimExportOptions = ZimExportOptions()) {
        self.options = options
    }

    /// Called after each item with the items done and their total.
    public typealias Progress = (_ items: Int, _ totalItems: Int) -> Void

    /// Writes the archive at `archive` to `output` as a ZIM.
    ///
    /// - Throws: ``ZimError``: `archive` wrapping the reader's error or `outputExists`; `libzim`
    ///   when libzim cannot write; `io`.
    public func run(archive: String, output: String, progress: Progress? = nil) throws -> ZimExportSummary {
        if !options.overwrite && access(output, F_OK) == 0 {
            throw ZimError.archive(.outputExists(path: output), path: output)
        }
        let reader: ArchiveReader
        let metadata: ArchiveMetadata
        let plan: ZimExportPlan
        do {
            reader = try ArchiveReader(path: archive)
            metadata = try reader.metadata
            plan = try ZimExportPlan(reader: reader, metadata: metadata, baseURL: options.baseURL)
        } catch let error as WebArcError {
            throw ZimError.archive(error, path: archive)
        }
        var summary = ZimExportSummary()
        summary.baseURL = plan.paths.baseURL
        summary.leftOut = plan.leftOut
        summary.mainPath = plan.mainPath
        summary.listedURLs = plan.listedURLs.count
        let file: OutputFile
        do {
            file = try OutputFile(targetPath: output, overwrite: options.overwrite)
        } catch let error as WebArcError {
            throw ZimError.archive(error, path: output)
        }
        do {
            var values = ZimMetadata(archive: metadata)
            let language = options.language ?? values.text("Language") ?? "eng"
            let creator = try ZimCreator(
                path: file.temporaryPath, reportedAs: output, indexLanguage: options.fullTextIndex ? language : nil)
            var mainTitle: String?
            for (number, item) in plan.items.enumerated() {
                let body = try reader.body(item.response.body)
                let isHTML =
                    item.mimeType.lowercased().hasPrefix("text/html")
                    || item.mimeType.lowercased().hasPrefix("application/xhtml")
                let title = isHTML ? Self.title(ofPage: Array(body)) ?? "" : ""
                if item.path == plan.mainPath { mainTitle = title }
                try body.withUnsafeBytes { bytes in
                    try creator.addItem(
                        path: item.path, title: title, mimeType: item.mimeType, bytes: bytes, frontArticle: isHTML)
                }
                if item.response.status != 200 { summary.statusesDropped += 1 }
                summary.items += 1
                progress?(number + 1, plan.items.count)
            }
            for redirect in plan.redirects {
                try creator.addRedirect(path: redirect.path, title: "", target: redirect.target)
                if plan.copies.contains(redirect.path) { summary.items += 1 } else { summary.redirects += 1 }
            }
            if let mainPath = plan.mainPath { creator.setMainPath(mainPath) }
            values.fillDefaults(
                options: options, language: language, mainTitle: mainTitle, archive: archive, output: output,
                baseURL: plan.paths.baseURL)
            for value in values.values where value.name != "Counter" {
                try creator.addMetadata(
                    value.name, value.bytes,
                    mimeType: value.mimeType == "text/plain" ? "text/plain;charset=utf-8" : value.mimeType)
            }
            try creator.addMetadata(ZimPaths.baseURLMetadata, Array(plan.paths.baseURL.utf8))
            for (name, value, isEmpty) in [
                (ZimPaths.copiesMetadata, plan.copies as Any, plan.copies.isEmpty),
                (ZimPaths.emptiesMetadata, plan.empties, plan.empties.isEmpty),
                (ZimPaths.urlsMetadata, plan.listedURLs, plan.listedURLs.isEmpty),
            ] where !isEmpty {
                let json = try JSONSerialization.data(
                    withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])
                try creator.addMetadata(name, Array(json), mimeType: "application/json")
            }
            summary.items += plan.empties.count
            try creator.finish()
            try Self.sync(file.temporaryPath)
            try file.commit(overwrite: options.overwrite)
        } catch let error as WebArcError {
            file.discard()
            throw ZimError.archive(error, path: output)
        } catch {
            file.discard()
            throw error
        }
        summary.bytes = (try? FileManager.default.attributesOfItem(atPath: output)[.size] as? UInt64) ?? 0
        return summary
    }

    /// The text of a page's first `<title>`, entities decoded and white space collapsed, or nil.
    static func title(ofPage page: [UInt8]) -> String? {
        var tokenizer = HTMLTokenizer(page)
        while let token = tokenizer.next() {
            guard case .rawText("title", let range) = token else { continue }
            let text = HTMLEntities.decode(String(decoding: page[range], as: UTF8.self))
            let words = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            return words.isEmpty ? nil : words
        }
        return nil
    }

    /// Syncs the file libzim wrote (it closes it without), before it is renamed into place.
    private static func sync(_ path: String) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0, fsync(descriptor) == 0 else {
            let code = errno
            if descriptor >= 0 { close(descriptor) }
            throw ZimError.io(path: path, operation: .transferring("sync"), errno: code)
        }
        close(descriptor)
    }
}
