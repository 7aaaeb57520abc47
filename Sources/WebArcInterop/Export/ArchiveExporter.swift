import Foundation
import WebArc

/// Exports an archive as WARC, HAR or a Safari `.webarchive`.
///
/// ```swift
/// let summary = try ArchiveExporter().run(archive: "site.webarc", format: .warc, output: "site.warc.gz")
/// print(summary.responses, summary.revisits)
/// ```
///
/// Nothing appears at the output path unless the export succeeds. Spec: `Spec/interop.md` §7.
public struct ArchiveExporter: Sendable {
    /// Overwriting, the page for `.webarchive`, the date for undated records.
    public var options: ExportOptions

    /// Makes an exporter.
    public init(options: ExportOptions = ExportOptions()) {
        self.options = options
    }

    /// Writes the archive at `archive` to `output` in `format`.
    ///
    /// - Throws: ``InteropError``: `archive` wrapping the reader's error or `outputExists`;
    ///   `pageNotFound` or `noPage` for `.webarchive`; `io`.
    public func run(archive: String, format: ExportFormat, output: String) throws -> ExportSummary {
        try InteropOutputFile.checkAbsent(output, overwrite: options.overwrite)
        do {
            let reader = try ArchiveReader(path: archive)
            let file = try InteropOutputFile(targetPath: output, overwrite: options.overwrite)
            var summary: ExportSummary
            switch format {
            case .warc: summary = try WARCExporter(reader: reader, options: options).write(to: file)
            case .har: summary = try HARExporter(reader: reader, options: options).write(to: file)
            case .webarchive: summary = try WebArchiveExporter(reader: reader, options: options).write(to: file)
            }
            summary.bytes = file.length
            try file.commit()
            return summary
        } catch let error as WebArcError {
            throw InteropError.archive(error, path: archive)
        }
    }
}
