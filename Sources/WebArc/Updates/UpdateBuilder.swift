import Foundation

/// Writes an update archive: what turns an old archive (or stack) into a new one (spec §13.1).
///
/// ```swift
/// let old = try LayerStack([try ArchiveReader(path: "site-1.webarc")])
/// let summary = try UpdateBuilder(old: old, new: try ArchiveReader(path: "site-2.webarc"))
///     .write(to: "site-1-to-2.webarc")
/// print(summary.changedKeys, summary.deletedKeys)
/// ```
///
/// The update holds the records of every key whose records differ between the old stack's
/// layered view and the new archive, a tombstone for every key the new archive dropped, and the
/// bodies no base holds, each chunk coded against the body the old stack answered the same key
/// with when that is shorter (a delta, codec 3). Unchanged keys fall through to the bases. Its
/// `Archive.target` names the new archive (digest, length, metadata with its writer recipe,
/// appendix), so ``UpdateApplier`` writes the new archive again byte for byte.
public struct UpdateBuilder {
    /// The archives the update goes over, top first: they become its bases.
    public let old: LayerStack
    /// The archive applying the update must give.
    public let new: ArchiveReader

    /// What a diff found and wrote.
    public struct Summary: Sendable, Equatable {
        /// Keys of the new archive whose records the old stack holds the same.
        public var unchangedKeys = 0
        /// Keys whose records differ or are new.
        public var changedKeys = 0
        /// Of ``changedKeys``, those whose records differ only outside their bodies (headers such
        /// as `Last-Modified`, status, redirect headers): each response keeps its body, each
        /// redirect its target. The update holds their records but no body bytes.
        public var headerOnlyKeys = 0
        /// Keys the new archive dropped (tombstones).
        public var deletedKeys = 0
        /// Bodies added to the update that a base already holds (not stored again).
        public var bodiesFromBases = 0
        /// Bodies new under their URL coded against a similar body of the bases.
        public var similarBodies = 0
        /// The update's writer statistics.
        public var statistics = ArchiveWriter.Statistics()
        /// Search documents taken from the new archive's own index instead of analysing the page.
        public var searchDocumentsReused = 0
        /// Whether taking documents from the new archive's index failed while the index was
        /// written, so the update was written again analysing every page.
        public var searchRebuilt = false

        /// An empty summary.
        public init() {}
    }

    /// Makes a builder for the update from `old` (top first) to `new`.
    public init(old: LayerStack, new: ArchiveReader) {
        self.old = old
        self.new = new
    }

    /// Writes the update to `path` atomically.
    ///
    /// - Throws: `badTarget` when the new archive cannot be written again (it has no writer
    ///   recipe: made before 2.1; or it is itself an update); ``WebArcError`` for damaged input or
    ///   I/O; nothing is left at `path` on failure.
    public func write(to path: String, overwrite: Bool = false, progress: ((Int, Int) -> Void)? = nil) throws -> Summary
    {
        // The pages the update carries are the new archive's: its own index already holds their
        // documents. Taken from there, they save time and never decide the result: when taking
        // them fails while the index is written, the update is written again analysing each page.
        let reuses = (try? new.metadata.bases.isEmpty) == true
        var finishing = false
        var summary = Summary()
        do {
            try write(
                to: path, overwrite: overwrite, indexFrom: reuses, finishing: &finishing, summary: &summary,
                progress: progress)
        } catch  where finishing && summary.searchDocumentsReused > 0 {
            summary = Summary()
            summary.searchRebuilt = true
            try write(
                to: path, overwrite: overwrite, indexFrom: false, finishing: &finishing, summary: &summary,
                progress: progress)
        }
        return summary
    }

    /// One attempt of ``write(to:overwrite:progress:)``, taking unchanged search documents from the
    /// new archive's index when `indexFrom` is set; `finishing` is set once the writer finishes.
    private func write(
        to path: String, overwrite: Bool, indexFrom reusing: Bool, finishing: inout Bool, summary: inout Summary,
        progress: ((Int, Int) -> Void)?
    ) throws {
        let (newMetadata, recipe) = try Self.writableMetadata(of: new)
        // No dictionaries of its own: an update's anchors would mostly be bases' bodies, whose
        // dictionary chunks (up to 64 KiB each, spec Appendix C step 13) would outweigh the few new
        // bodies they help. Changed bodies are deltas; new ones are coded alone.
        // The recipe's level and search index (the update indexes the pages it carries exactly when
        // the new archive has an index; `writableMetadata` refused a rules version this tool lacks).
        var options = ArchiveWriter.Options(overwrite: overwrite, recipe: recipe)
        options.dictionaryInterval = 0
        options.zstdLevel = nil
        options.dictionaryPlacement = .prefix
        let index = options.searchIndex(reusing: reusing ? [new] : [])
        let writer = try ArchiveWriter(path: path, options: options, bases: old.layers)
        defer { summary.searchDocumentsReused = index?.reusedDocuments ?? 0 }
        // Only a key new under its URL looks for a similar body, so the old stack's bodies are
        // gathered on the first such key.
        var similar: SimilarBodies?
        var newGroups = KeyGroups(RecordCursor(new))
        var done = 0
        /// The new archive's next key with records that are not tombstones.
        func nextNew() throws -> (key: String, bytes: [UInt8], entries: [ArchiveEntry])? {
            while var group = try newGroups.next() {
                done += group.entries.count
                guard !group.entries[0].record.isTombstone else { continue }
                group.entries.removeAll { $0.record.isTombstone }
                return group
            }
            return nil
        }
        func addGroup(_ entries: [ArchiveEntry], previous: LayeredRecords?) throws {
            defer { progress?(done, new.recordCount) }
            let comparison = try previous.map { try compare(entries, $0) } ?? .changed
            if comparison == .same {
                summary.unchangedKeys += 1
                return
            }
            summary.changedKeys += 1
            if comparison == .headersOnly { summary.headerOnlyKeys += 1 }
            var previousBody = try previous.flatMap(previousVersion)
            if previousBody == nil, let found = try similarVersion(of: entries, in: &similar) {
                previousBody = found
                summary.similarBodies += 1
            }
            // Inserted last first, so that records of one key with one date keep their order
            // (the tree orders them by insertion, newest first; spec Appendix C step 5).
            for entry in entries.reversed() {
                try add(entry, to: writer, previous: previousBody, summary: &summary)
            }
        }
        // Both views are in key order: one pass merges them. Deleted keys are written after the
        // others, as tombstones, in key order.
        var deleted: [RequestRecord] = []
        try writer.failing {
            var pending = try nextNew()
            try old.forEachKey { key, records in
                let oldKey = Array(key.utf8)
                while let group = pending, KeyOrder.less(group.bytes, oldKey) {
                    try addGroup(group.entries, previous: nil)
                    pending = try nextNew()
                }
                if let group = pending, group.bytes == oldKey {
                    try addGroup(group.entries, previous: records)
                    pending = try nextNew()
                } else {
                    let request = records.entries[0].record.request
                    deleted.append(RequestRecord(method: request.method, url: request.url))
                }
            }
            while let group = pending {
                try addGroup(group.entries, previous: nil)
                pending = try nextNew()
            }
            for request in deleted {
                try writer.add(TombstoneRecord(request: request))
                summary.deletedKeys += 1
            }
        }
        writer.metadata.creator = WebArcVersion.creator
        writer.metadata.startURL = newMetadata.startURL
        writer.metadata.baseURL = newMetadata.baseURL
        writer.metadata.target = UpdateTarget(
            digest: new.archiveDigest, archiveLength: new.archiveLength, archive: newMetadata,
            appendix: try new.appendixBytes(),
            bodyData: try new.bodyDataDigest())
        finishing = true
        try writer.finish()
        summary.statistics = writer.statistics
    }

    /// Adds one record of the new archive, its body coded against `previous` when it has one.
    private func add(
        _ entry: ArchiveEntry, to writer: ArchiveWriter, previous: ArchiveWriter.PreviousVersion?,
        summary: inout Summary
    ) throws {
        let before = writer.statistics.bodiesStored
        if let stored = try writer.copy(entry.record, from: new, known: entry.body, previous: previous),
            stored.wasDeduplicated,
            writer.statistics.bodiesStored > before
        {
            summary.bodiesFromBases += 1
        }
    }

    /// How the new archive's records of a key compare with the old stack's.
    private func compare(_ entries: [ArchiveEntry], _ old: LayeredRecords) throws -> RecordComparison {
        try Self.compare(
            entries.map { ($0.record, $0.body) }, in: new, old.entries.map { ($0.record, $0.body) },
            in: self.old.layers[old.layer])
    }

    /// For a key with no previous body: a body of the bases its first response's body resembles,
    /// unless a base holds that body itself (then it is not stored again anyway). The old stack's
    /// bodies are gathered into `similar` the first time one is needed.
    private func similarVersion(
        of entries: [ArchiveEntry], in similar: inout SimilarBodies?
    ) throws -> ArchiveWriter.PreviousVersion? {
        for entry in entries {
            guard case .response(let response) = entry.record, response.bodyLength > 0 else { continue }
            let body = try new.bodyEntry(response.body, known: entry.body)
            if try old.layers.contains(where: { try $0.holds(body) }) { return nil }
            if similar == nil { similar = try SimilarBodies(stack: old) }
            return try similar?.previousVersion(of: body, in: new, mimeType: response.mimeType)
        }
        return nil
    }

    /// The body the old stack answers a key with (its first response with a body), as the base
    /// that holds it reads it.
    private func previousVersion(_ old: LayeredRecords) throws -> ArchiveWriter.PreviousVersion? {
        for entry in old.entries {
            guard case .response(let response) = entry.record, response.bodyLength > 0 else { continue }
            let body = try self.old.layers[old.layer].bodyEntry(response.body, known: entry.body)
            return body.length <= BodyTransfer.wholeLimit
                ? ArchiveWriter.PreviousVersion(base: old.layer, body: body) : nil
        }
        return nil
    }
}

extension UpdateBuilder {
    /// The new archive's metadata and writer recipe, when it can be written again.
    ///
    /// - Throws: `badTarget` when it has no writer recipe (written before 2.1), one this version
    ///   cannot follow (``WriterRecipe/requireWritable()``), or is an update.
    static func writableMetadata(of new: ArchiveReader) throws -> (ArchiveMetadata, WriterRecipe) {
        let metadata = try new.metadata
        guard let recipe = metadata.writer else {
            throw WebArcError.badTarget(
                reason:
                    "\(new.path) has no writer recipe (written before format 2.1): pack or import it again with this version"
            )
        }
        try recipe.requireWritable()
        guard metadata.bases.isEmpty, metadata.target == nil else {
            throw WebArcError.badTarget(
                reason: "\(new.path) is itself an update: apply it first, then diff against the result")
        }
        return (metadata, recipe)
    }

    /// How two lists of records of one key compare: the same records in the same order (bodies
    /// compared by length, MD5 and SHA-256: variants may be numbered otherwise); or records that
    /// pair up one to one, each response with a response of the same body and each redirect with
    /// a redirect to the same target, differing elsewhere (headers, status); or changed. Each
    /// record comes with the body entry its leaf gave, if any (else it is looked up).
    static func compare(
        _ mine: [(ArchiveRecord, BodyEntry?)], in new: ArchiveReader, _ theirs: [(ArchiveRecord, BodyEntry?)],
        in old: ArchiveReader
    ) throws -> RecordComparison {
        guard mine.count == theirs.count else { return .changed }
        var comparison = RecordComparison.same
        for ((left, leftKnown), (right, rightKnown)) in zip(mine, theirs) {
            switch (left, right) {
            case (.response(let left), .response(var right)):
                let leftBody = try new.bodyEntry(left.body, known: leftKnown)
                let rightBody = try old.bodyEntry(right.body, known: rightKnown)
                guard leftBody.sha256 == rightBody.sha256, leftBody.length == rightBody.length,
                    leftBody.reference.digest == rightBody.reference.digest
                else { return .changed }
                right.body = left.body
                if left != right { comparison = .headersOnly }
            case (.redirect(let left), .redirect(let right)) where left.target == right.target:
                if left != right { comparison = .headersOnly }
            default:
                guard left == right else { return .changed }
            }
        }
        return comparison
    }
}

/// How the new archive's records of a key compare with the old stack's (``UpdateBuilder``).
enum RecordComparison: Equatable {
    /// The same records: the key falls through to the bases.
    case same
    /// The same bodies and redirect targets; other fields (headers, status) differ.
    case headersOnly
    /// A body, a target, a record's kind or the number of records differs.
    case changed
}
