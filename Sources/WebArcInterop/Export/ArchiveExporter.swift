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
        try run(archive: archive, opening: { try ArchiveReader(path: archive) }, format: format, output: output)
    }

    /// Writes the archive that `open` opens (from any byte source: a file, a URL) to `output` in
    /// `format`; `archive` names it in errors. `open` runs after the output is checked to be absent.
    ///
    /// - Throws: as ``run(archive:format:output:)``; whatever `open` throws that is not a
    ///   `WebArcError` (a transport error) unchanged.
    public func run(
        archive: String, opening open: () throws -> ArchiveReader, format: ExportFormat, output: String
    ) throws -> ExportSummary {
        if format == .zim { throw InteropError.zimNeedsLibzim(path: output) }
        try InteropOutputFile.checkAbsent(output, overwrite: options.overwrite)
        do {
            let reader = try open()
            let file = try InteropOutputFile(targetPath: output, overwrite: options.overwrite)
            var summary: ExportSummary
            switch format {
            case .warc: summary = try WARCExporter(reader: reader, options: options).write(to: file)
            case .har: summary = try HARExporter(reader: reader, options: options).write(to: file)
            case .webarchive: summary = try WebArchiveExporter(reader: reader, options: options).write(to: file)
            case .wacz: summary = try WACZExporter(reader: reader, options: options).write(to: file)
            case .zim: throw InteropError.zimNeedsLibzim(path: output)
            }
            summary.bytes = file.length
            try file.commit()
            return summary
        } catch let error as WebArcError {
            throw InteropError.archive(error, path: archive)
        }
    }
}
