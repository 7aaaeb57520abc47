import Foundation
import WebArc

/// Writes a copy of an archive with a full-text index (`webarc index`): every record in
/// record-tree order, each body coded again at the archive's level, the metadata kept (its
/// `Writer` becomes the copy's own).
public enum IndexedCopy {
    /// What a copy held.
    public struct Summary: Sendable {
        /// Records copied.
        public var records = 0
        /// Pages of text the index holds.
        public var documents = 0
    }

    /// Copies the archive `reader` reads to `path`, with an index.
    ///
    /// - Throws: `invalidRecord` for an update archive (index the archive applying it gives);
    ///   page, chunk and I/O errors; `outputExists` when `path` exists and `overwrite` is false.
    public static func write(
        from reader: ArchiveReader, to path: String, overwrite: Bool = false,
        builder: SearchIndexBuilder = SearchIndexBuilder()
    ) throws -> Summary {
        let metadata = try reader.metadata
        guard metadata.bases.isEmpty else {
            throw WebArcError.invalidRecord(
                url: "", reason: "an update archive is indexed with its bases: apply it first, then index the result")
        }
        let recipe = metadata.writer
        var options = ArchiveWriter.Options(
            overwrite: overwrite, compressionLevel: recipe?.level ?? 1,
            dictionaryInterval: recipe?.dictionaryInterval ?? 0, zstdLevel: recipe?.zstdLevel)
        options.dictionaryPlacement = recipe?.placement ?? .prefix
        nonisolated(unsafe) let given = builder
        options.searchIndex = { given }
        let writer = try ArchiveWriter(path: path, options: options)
        var summary = Summary()
        try writer.failing {
            var copied = metadata
            copied.writer = nil
            writer.metadata = copied
            var stored: [BodyReference: StoredBody] = [:]
            try reader.forEachEntry { entry in
                switch entry.record {
                case .response(var response):
                    let body: StoredBody
                    if let known = stored[response.body] {
                        body = try writer.addBody(repeating: known)
                    } else {
                        body = try writer.addBody(try reader.body(response.body))
                        stored[response.body] = body
                    }
                    response.body = body.reference
                    response.bodyLength = body.length
                    try writer.add(response)
                case .redirect(let redirect): try writer.add(redirect)
                case .tombstone(let tombstone): try writer.add(tombstone)
                }
                summary.records += 1
            }
            try writer.finish()
        }
        summary.documents = builder.documentCount
        return summary
    }
}
