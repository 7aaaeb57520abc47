import WebArc

/// What an import gathers while it reads its inputs: notes, bad records skipped, archive
/// metadata, and the running order in which captures were read.
final class ImportContext {
    let options: ImportOptions
    private(set) var notes: [InteropNote] = []
    private(set) var skipped: [InteropError] = []
    /// Free-form metadata for the archive (sources, WARC warcinfo blocks).
    var metadataEntries: [ArchiveMetadata.Entry] = []
    /// The page to open first, when an input names one.
    var startURL: String?
    private var nextOrder = 0

    init(options: ImportOptions) {
        self.options = options
    }

    /// Records a note.
    func note(_ note: InteropNote) { notes.append(note) }

    /// Fails with `error` by default; with `--skip-bad` lists it and lets the import go on.
    ///
    /// - Throws: `error` unless ``ImportOptions/skipBad`` is set and the error concerns one record.
    func bad(_ error: InteropError) throws {
        guard options.skipBad, error.isBadRecord else { throw error }
        skipped.append(error)
    }

    /// A point to roll notes and metadata back to when a record turns out bad after it was read.
    struct Mark {
        fileprivate let notes: Int
        fileprivate let metadata: Int
    }

    /// The current point, for ``rollBack(to:)``.
    func mark() -> Mark { Mark(notes: notes.count, metadata: metadataEntries.count) }

    /// Forgets notes and metadata added since `mark`.
    func rollBack(to mark: Mark) {
        notes.removeSubrange(mark.notes...)
        metadataEntries.removeSubrange(mark.metadata...)
    }

    /// The next number in reading order.
    func nextOrderNumber() -> Int {
        defer { nextOrder += 1 }
        return nextOrder
    }
}

/// A body stored in the archive, with the content codings still applied to it.
struct StoredPayload {
    var body: StoredBody
    var remaining: [String]
}

/// The second pass of an input format: stores the bodies the duplicates rule kept.
///
/// Conformers: ``WARCImporter`` (re-reads the records), ``HARImporter`` and ``WebArchiveImporter``
/// (bodies already in memory).
protocol BodyProvider: AnyObject {
    /// Stores the bodies numbered `indices`, in that order, and returns each with its remaining
    /// codings; calls `beforeEach` with a body's number and the bodies this call stored so far
    /// just before storing it (``ResponsePositions``).
    func storeBodies(
        _ indices: [Int], in writer: ArchiveWriter, context: ImportContext,
        beforeEach: (Int, [Int: StoredPayload]) throws -> Void
    ) throws -> [Int: StoredPayload]
}
