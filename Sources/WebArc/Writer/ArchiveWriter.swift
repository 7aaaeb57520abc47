import Foundation

/// Writes a new archive: bodies (deduplicated by MD5, confirmed by length and SHA-256), records and
/// metadata, finished atomically.
///
/// ```swift
/// let writer = try ArchiveWriter(path: "site.webarc")
/// let body = try writer.addBody(Array("<h1>Hello</h1>".utf8))
/// try writer.add(ResponseRecord(request: RequestRecord(url: "http://localhost/"), body: body))
/// try writer.finish()
/// ```
///
/// Nothing appears at `path` until ``finish(expected:appendix:)`` succeeds: the archive is written
/// to a temporary file in the same folder, synced and renamed. Bodies go to the file as they are
/// added; records wait in memory (encoded) until ``finish(expected:appendix:)`` writes the page
/// trees, the metadata page and the trailer in the order of spec Appendix C, so that the same
/// input gives the same bytes. Not thread-safe: one task owns a writer.
public final class ArchiveWriter {
    /// Choices that change what the writer does, not what it writes.
    public struct Options: Sendable {
        /// Replace an existing file at the path.
        public var overwrite: Bool
        /// LZ4 level for bodies added here: 1 fast (`LZ4_compress_default`, spec Appendix C), 3–12
        /// LZ4HC (smaller, slower to write, as fast to read). Same format either way.
        public var compressionLevel: Int
        /// Every this many bodies added, one is an anchor whose last chunk is the dictionary of the
        /// next ones' first chunks (codec 2, spec Appendix C step 13); 0: no dictionaries.
        public var dictionaryInterval: Int
        /// Also code the chunks of bodies that have a dictionary as Zstandard frames at this level
        /// against the anchor's last chunk, where that is shorter (codec 3, spec Appendix C step
        /// 15): much smaller, slower to write and to read; nil (the default): LZ4 only.
        public var zstdLevel: Int?
        /// Which bodies are anchors: nil (the default), every `dictionaryInterval`-th; a keyed plan
        /// (``AnchorPlan/init(interval:bodies:rule:)``, made with the same interval and the key and
        /// length of every body this writer will be given; ``AnchorPlan/following(_:responses:)``
        /// for an archive written again by its recipe) keeps anchors in place when pages are added
        /// or dropped, so an update's apply codes again only bodies near the change
        /// (`Writer.anchors` 1 or 2).
        package var anchorPlan: AnchorPlan?
        /// Where a codec-2 chunk's dictionary lies when LZ4 compresses it (spec Appendix C step 13,
        /// `Writer.dictionaryPlacement`): `.prefix` (the default, since 2.1.8), right before the
        /// chunk, faster to compress; `.apart` as every writer before.
        public var dictionaryPlacement: DictionaryPlacement = .prefix
        /// Makes the full-text index the archive gets when it finishes (spec §17), or nil (the
        /// default): no index. The search module's `SearchIndexBuilder` is one.
        public var searchIndex: (@Sendable () -> any SearchIndexContributor)?
        /// Group new bodies of up to this many bytes into shared chunks of up to as many, 65 536 to
        /// 2 097 152 (spec §6.3 slices, Appendix C step 16; `Writer.groups`), which compress far
        /// better than small bodies alone; a cold read of one decodes its group. Dictionaries
        /// (``dictionaryInterval``) are then off, and ``zstdLevel`` codes chunks as Zstandard
        /// frames alone (codec 4). nil (the default): no groups. An update archive never groups.
        public var groups: Int?

        /// Memory of the records held before they are sorted and spilled to a temporary file as
        /// one run (``RecordRuns``); the archive's bytes do not depend on it.
        package var recordRunBytes = 32 << 20
        /// Distinct bodies the caller expects to add, at most (an apply counts its body jobs): the
        /// body table is sized for them at once, instead of growing by copies that briefly hold
        /// its old and new tables (12 MB more at a million bodies). 0: grown as bodies come.
        package var expectedBodies = 0
        /// Whether the metadata gets the archive's totals (spec §7.3 `Totals`): always, but for an
        /// archive written again to match one that has none (an update made before 2.2.2).
        package var writesTotals = true

        /// Makes options.
        public init(
            overwrite: Bool = false, compressionLevel: Int = 1, dictionaryInterval: Int = 0, zstdLevel: Int? = nil
        ) {
            self.overwrite = overwrite
            self.compressionLevel = compressionLevel
            self.dictionaryInterval = dictionaryInterval
            self.zstdLevel = zstdLevel
            searchIndex = SearchIndexRegistry.writerDefault
        }

        /// The options that write an archive the way `recipe` says (whose placement must be one
        /// this version knows: ``WriterRecipe/requireWritable()``).
        package init(overwrite: Bool = false, recipe: WriterRecipe) {
            self.init(
                overwrite: overwrite, compressionLevel: recipe.level, dictionaryInterval: recipe.dictionaryInterval,
                zstdLevel: recipe.zstdLevel)
            dictionaryPlacement = recipe.placement
            groups = recipe.groups
            // The recipe decides, whatever the process's default: an archive written again has
            // an index exactly when the original had one.
            if let version = recipe.search {
                searchIndex = { SearchIndexRegistry.contributor(version: version)! }
            } else {
                searchIndex = nil
            }
        }
    }

    /// Archive-level metadata written to the metadata page; non-empty `bases` make the archive an
    /// update (required feature bit 0).
    public var metadata = ArchiveMetadata()

    let output: OutputFile
    let options: Options
    /// For an update archive, its bases (nearest first): bodies they hold are not stored again.
    let bases: [ArchiveReader]
    /// Stored bodies by MD5, variants in the order first met; their entries wait in a scratch file.
    let bodies = BodyTable()
    /// The records added, sorted with bounded memory when the writer finishes.
    let records: RecordRuns
    /// Positions of the bodies added and the dictionary of the latest anchor (Appendix C step 13).
    var anchors: DictionaryAnchors
    var hasTombstones = false
    /// The records and body entries counted for the metadata's totals.
    var totalsCounter = ArchiveTotals.Counter()
    var closed = false
    /// The group limit in force: the options' for an archive without bases, else nil (no groups).
    let groupLimit: Int?
    /// The bodies waiting for their group chunk (spec Appendix C step 16).
    var group = BodyGroup()
    /// Groups read back and decoded, for the search index's reads of slices.
    var groupCache = LRUCache<ChunkEntry, [UInt8]>(maxCount: 8, maxCost: 16 << 20)
    /// The full-text index the archive gets when it finishes, if any.
    let searchIndex: (any SearchIndexContributor)?

    /// Statistics about what has been added so far.
    public internal(set) var statistics = Statistics()

    /// Counts of what the writer has stored.
    public struct Statistics: Sendable, Equatable {
        /// Bodies added, duplicates included.
        public var bodiesAdded = 0
        /// Distinct bodies stored.
        public var bodiesStored = 0
        /// Uncompressed bytes of every body added.
        public var rawBytes: UInt64 = 0
        /// Bytes stored in the body data.
        public var storedBytes: UInt64 = 0
    }

    /// Starts an archive that will appear at `path` when finished.
    ///
    /// - Parameters:
    ///   - path: where the archive appears.
    ///   - options: overwriting and compression.
    ///   - bases: for an update archive, its bases, nearest first (each opened over its own
    ///     bases). A body equal to one a base holds is not stored again: its entry names the base's
    ///     chunks (spec §13, Appendix C step 11). They become ``metadata``'s `bases` (named by file
    ///     name), which makes the archive an update (required feature bit 0).
    /// - Throws: `outputExists` when `path` exists and `options.overwrite` is false; `io`.
    public init(path: String, options: Options = Options(), bases: [ArchiveReader] = []) throws {
        self.options = options
        self.bases = bases
        searchIndex = options.searchIndex?()
        // A search index reads the records back by insertion order, so they stay in memory then.
        records = RecordRuns(runBytes: options.recordRunBytes)
        try bodies.reserve(options.expectedBodies)
        groupLimit =
            bases.isEmpty
            ? options.groups.map { min(max($0, Self.groupLimits.lowerBound), Self.groupLimits.upperBound) } : nil
        // Grouped bodies take no dictionaries (spec Appendix C step 16).
        anchors = DictionaryAnchors(
            plan: groupLimit != nil
                ? AnchorPlan(interval: 0) : options.anchorPlan ?? AnchorPlan(interval: options.dictionaryInterval),
            placement: options.dictionaryPlacement)
        metadata.bases = bases.map { base in
            BaseArchive(
                digest: base.archiveDigest, archiveLength: base.archiveLength,
                name: BaseArchive.nameHint(location: base.path))
        }
        output = try OutputFile(targetPath: path, overwrite: options.overwrite)
        var lead = Lead()
        // An archive with a search index is a 2.2 file (version 1) or a 2.3 one (spec §15, §17);
        // others stay 2.1.
        lead.minorVersion = Lead.minor(searchVersion: searchIndex?.version, grouped: mayGroup)
        try output.append(lead.serialize())
    }

    /// Whether the archive may hold slices or codec-4 chunks: it groups, or a base does (its
    /// entries may be taken); such an archive is a 2.4 file (spec §4.1).
    var mayGroup: Bool {
        groupLimit != nil || bases.contains { $0.trailer.requiredFeatures.contains(.groupedBodies) }
    }

    /// Abandons the archive: the temporary file is removed and `path` is left as it was.
    public func cancel() {
        closed = true
        output.discard()
    }

    func ensureOpen() throws {
        if closed { throw WebArcError.writerClosed }
    }

    /// Runs `body`, and on any error abandons the archive so that nothing half-written remains.
    public func failing<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            cancel()
            throw error
        }
    }
}
