import Foundation
import Synchronization

extension ArchiveWriter {
    /// Writes the page trees, the metadata page and the trailer, syncs, and renames the archive
    /// into place.
    ///
    /// Pages follow the body data in the order of spec Appendix C: body leaves, body interior
    /// levels bottom up, record leaves, record interior levels bottom up, the metadata page; each
    /// is compressed with LZ4 when that is smaller. On any error the temporary file is removed and
    /// the target path is untouched.
    /// The metadata's `writer` becomes this writer's recipe (level, dictionary interval, the order
    /// records were added in; spec Appendix C step 7), whatever it held, and its `totals` the
    /// counts of what was written (unless `Options.writesTotals` is off).
    ///
    /// - Parameters:
    ///   - expected: the archive digest and length the archive must have (an applied update, spec
    ///     §13.1): when they differ nothing is written and `badTarget` is thrown.
    ///   - appendix: bytes appended after the archive (a signature appendix, spec §12.1).
    /// - Throws: `invalidRecord` when one URL's records need a page over 4 MiB; `badTarget`; `io`,
    ///   or `outputExists` when the path appeared meanwhile and overwriting is off.
    public func finish(expected: (digest: [UInt8], archiveLength: UInt64)? = nil, appendix: [UInt8] = []) throws {
        try ensureOpen()
        try failing {
            try closeGroup()
            let bodyDataEnd = output.length
            try output.startWritebackOfAll()
            // Both trees stream: the body entries come back from the scratch file in reference
            // order, the records from their sorted runs in tree order; each tree's leaves are
            // encoded, compressed and hashed on every core a batch at a time and placed in order.
            try bodies.seal()
            let bodyTree = try writeBodyTree()
            // The index's pages follow the body tree; its root waits until after the record root,
            // so that the read at open (spec §14) fetches it with the metadata.
            let searchRoot = try searchIndex.map { try writeSearchPages($0, sorted: try records.sorted()) }
            var sorted = try records.sorted()
            // 4 bytes a record, as the body table numbers bodies.
            precondition(records.count <= Int(UInt32.max), "more records than an insertion order numbers")
            var treePositions = [UInt32](repeating: 0, count: records.count)
            let recordRoot = try writeRecordTree(&sorted, treePositions: &treePositions)
            metadata.writer = WriterRecipe(
                level: options.compressionLevel, dictionaryInterval: anchors.interval, zstdLevel: options.zstdLevel,
                order: InsertionOrder(positions: treePositions), anchors: anchors.plan.rule,
                placement: options.dictionaryPlacement, search: searchIndex?.version, groups: groupLimit)
            treePositions = []
            // Version 1 under `search` (a 2.2 file, bit 0), 2 under `searchIndex` (2.3, bit 1), 3 under
            // `searchIndex3` (2.5, bit 2), 4 under `searchIndex4` (2.6, bit 3): an older reader does not know the newer key and sees no index
            // rather than one it cannot read.
            let searchReference = try searchRoot.map { try storePage($0, height: 0) }
            switch searchIndex?.version {
            case 1: metadata.searchIndex = searchReference
            case 2: metadata.searchIndexV2 = searchReference
            case 3: metadata.searchIndexV3 = searchReference
            default: metadata.searchIndexV4 = searchReference
            }
            metadata.totals = options.writesTotals ? totalsCounter.totals(layered: !metadata.bases.isEmpty) : nil
            let metadataRaw = MetadataPage.encode(object: RecordObjects.archive(metadata).encoded())
            let metadataReference = try storePage(metadataRaw, height: 0)

            var trailer = Trailer(metadata: metadataReference, recordRoot: recordRoot, bodyRoot: bodyTree.root)
            if let version = searchIndex?.version {
                let bit: UInt64 =
                    switch version {
                    case 1: Trailer.OptionalFeatures.searchIndex
                    case 2: Trailer.OptionalFeatures.searchIndexV2
                    case 3: Trailer.OptionalFeatures.searchIndexV3
                    default: Trailer.OptionalFeatures.searchIndexV4
                    }
                trailer.optionalFeatures |= bit
            }
            trailer.minorVersion = Lead.minor(searchVersion: searchIndex?.version, grouped: mayGroup)
            if hasTombstones || !metadata.bases.isEmpty { trailer.requiredFeatures.insert(.layer) }
            if bodyTree.usesDictionaries { trailer.requiredFeatures.insert(.dictionaryCodec) }
            if bodyTree.usesDeltas { trailer.requiredFeatures.insert(.deltaCodec) }
            if bodyTree.usesGroups { trailer.requiredFeatures.insert(.groupedBodies) }
            trailer.archiveLength = output.length + UInt64(Trailer.size)
            trailer.bodyDataEnd = bodyDataEnd
            trailer.recordCount = UInt64(records.count)
            trailer.bodyCount = UInt64(bodies.count)
            let trailerBytes = trailer.serialize()
            if let expected {
                let digest = SHA256Hash.of(trailerBytes).bytes
                guard digest == expected.digest, trailer.archiveLength == expected.archiveLength else {
                    throw WebArcError.badTarget(
                        reason:
                            "the result has archive digest \(SHA256Hash(bytes: digest)!.hex) and length \(trailer.archiveLength), "
                            + "the update names \((SHA256Hash(bytes: expected.digest)?.hex ?? "?")) and \(expected.archiveLength)"
                    )
                }
            }
            try output.append(trailerBytes)
            if !appendix.isEmpty { try output.append(appendix) }
            try output.commit(overwrite: options.overwrite)
            closed = true
        }
    }

    /// Pages prepared on every core at once, at most: enough to keep the cores busy, few enough
    /// that the batch's records and entries stay a few MiB.
    private static let pagesPerBatch = 64

    /// Writes the body tree: the entries in reference order, packed into leaves (spec Appendix C
    /// steps 3–4), then the interior levels; returns its root and which codecs the bodies use.
    private func writeBodyTree() throws -> (
        root: PageReference, usesDictionaries: Bool, usesDeltas: Bool, usesGroups: Bool
    ) {
        var leaves: [(key: [UInt8], child: PageReference)] = []
        var waiting: [[BodyEntry]] = []
        var page: [BodyEntry] = []
        var used = BodyLeaf.headSize
        var usesDictionaries = false
        var usesDeltas = false
        var usesGroups = false
        func placeWaiting() throws {
            let pages = waiting
            waiting = []
            let prepared = Self.prepareInParallel(pages.count) { number in
                try PreparedPage(raw: BodyLeaf.encode(pages[number]), key: pages[number].first?.reference.treeKey ?? [])
            }
            for page in prepared {
                let page = try page.get()
                leaves.append((page.key, try append(page, height: 0)))
            }
        }
        try bodies.forEachSorted { entry in
            usesDictionaries =
                usesDictionaries
                || entry.chunks.contains { $0.codec == .lz4Dictionary || $0.reference?.codec == .lz4Dictionary }
            usesDeltas = usesDeltas || entry.chunks.contains { $0.codec == .zstdDelta }
            usesGroups = usesGroups || entry.isSlice || entry.chunks.contains { $0.codec == .zstd }
            totalsCounter.add(body: entry)
            let extra = entry.encodedSize
            if !page.isEmpty && used + extra > PagePacking.target {
                waiting.append(page)
                page = []
                used = BodyLeaf.headSize
                if waiting.count >= Self.pagesPerBatch { try placeWaiting() }
            }
            page.append(entry)
            used += extra
        }
        waiting.append(page)
        try placeWaiting()
        return (try writeInteriorLevels(leaves, tree: .bodies), usesDictionaries, usesDeltas, usesGroups)
    }

    /// One record-tree leaf to encode: its records, in tree order, and the body entries they name.
    private struct RecordPage {
        var records: [PendingRecord] = []
        var bodies: [BodyEntry] = []
    }

    /// Writes the record tree from the records in tree order: a key's records stay in one leaf,
    /// and a leaf takes groups while its records and the entries of the bodies they name fit
    /// ``PagePacking/target`` (spec Appendix C step 6); then the interior levels. Notes each
    /// record's tree position at its insertion order in `treePositions`; returns the root.
    private func writeRecordTree(_ sorted: inout SortedRecords, treePositions: inout [UInt32]) throws -> PageReference {
        var leaves: [(key: [UInt8], child: PageReference)] = []
        var waiting: [RecordPage] = []
        var page = RecordPage()
        /// The entries of the bodies the page's records name so far.
        var pageBodies: [BodyReference: BodyEntry] = [:]
        var used = RecordLeaf.headSize
        func placeWaiting() throws {
            let pages = waiting
            waiting = []
            let prepared = Self.prepareInParallel(pages.count) { number -> PreparedPage in
                let page = pages[number]
                let raw = RecordLeaf.encode(records: page.records.map { ($0.key, $0.object) }, bodies: page.bodies)
                guard raw.count <= Int(FormatBounds.maxPageLength) else {
                    throw WebArcError.invalidRecord(
                        url: page.records.first?.url ?? "",
                        reason: "its records need a page of \(raw.count) bytes, over the 4 MiB bound")
                }
                return try PreparedPage(raw: raw, key: page.records.first?.key ?? [])
            }
            // The first failure in page order, as one core would have met it.
            for page in prepared {
                let page = try page.get()
                leaves.append((page.key, try append(page, height: 0)))
            }
        }
        func close() throws {
            page.bodies = pageBodies.values.sorted { $0.reference < $1.reference }
            waiting.append(page)
            page = RecordPage()
            pageBodies = [:]
            used = RecordLeaf.headSize
            if waiting.count >= Self.pagesPerBatch { try placeWaiting() }
        }
        func add(group: [PendingRecord]) throws {
            let recordsSize = group.reduce(0) { $0 + RecordLeaf.entrySize(key: $1.key, object: $1.object) }
            // The bodies the group names, once each (a group is a key's few records).
            var named: [BodyEntry] = []
            for case let body? in group.lazy.map(\.body) where !named.contains(where: { $0.reference == body }) {
                guard let entry = try bodies.entry(body) else {
                    throw WebArcError.invalidRecord(
                        url: group[0].url, reason: "body \(body) was not added to this writer")
                }
                named.append(entry)
            }
            var extra = recordsSize + named.reduce(0) { pageBodies[$1.reference] == nil ? $0 + $1.encodedSize : $0 }
            if !page.records.isEmpty && used + extra > PagePacking.target {
                try close()
                extra = recordsSize + named.reduce(0) { $0 + $1.encodedSize }
            }
            for entry in named { pageBodies[entry.reference] = entry }
            page.records += group
            used += extra
        }
        var group: [PendingRecord] = []
        var position = 0
        while let record = try sorted.next() {
            treePositions[record.order] = UInt32(position)
            position += 1
            if let first = group.first, first.key != record.key {
                try add(group: group)
                group = []
            }
            group.append(record)
        }
        if !group.isEmpty { try add(group: group) }
        waiting.append(
            RecordPage(records: page.records, bodies: pageBodies.values.sorted { $0.reference < $1.reference }))
        try placeWaiting()
        return try writeInteriorLevels(leaves, tree: .records)
    }

    /// `prepare(0)` … `prepare(count - 1)` on every core, their results in order.
    static func prepareInParallel(
        _ count: Int, _ prepare: @Sendable (Int) throws -> PreparedPage
    ) -> [Result<PreparedPage, any Error>] {
        let results = Mutex<[Result<PreparedPage, any Error>?]>(Array(repeating: nil, count: count))
        DispatchQueue.concurrentPerform(iterations: count) { number in
            let result = Result { try prepare(number) }
            results.withLock { $0[number] = result }
        }
        return results.withLock { $0.map { $0! } }
    }

    /// Builds interior levels over `level` until one page remains, writing each level bottom up;
    /// returns the root's reference.
    private func writeInteriorLevels(
        _ leaves: [(key: [UInt8], child: PageReference)], tree: Page.Tree
    ) throws -> PageReference {
        var level = leaves
        var height: UInt8 = 0
        while level.count > 1 {
            height += 1
            var next: [(key: [UInt8], child: PageReference)] = []
            for page in PagePacking.pack(
                level, headSize: InteriorPage.headSize, size: { InteriorPage.entrySize(key: $0.key) })
            {
                next.append(
                    (page[0].key, try storePage(InteriorPage.encode(tree: tree, entries: page), height: height)))
            }
            level = next
        }
        return level[0].child
    }

    /// Compresses a page with `LZ4_compress_default` when that is smaller, appends it, and returns
    /// its reference (spec Appendix C step 8).
    func storePage(_ raw: [UInt8], height: UInt8) throws -> PageReference {
        try append(PreparedPage(raw: raw, key: []), height: height)
    }

    /// Appends a prepared page and returns its reference.
    private func append(_ page: PreparedPage, height: UInt8) throws -> PageReference {
        let reference = PageReference(
            offset: output.length, storedLength: UInt32(page.stored.count), rawLength: page.rawLength,
            codec: page.codec, height: height,
            digest: page.digest)
        try output.append(page.stored)
        return reference
    }
}

/// A page encoded, compressed with `LZ4_compress_default` when that is smaller, and hashed, not yet
/// placed in the archive (spec Appendix C step 8).
struct PreparedPage: Sendable {
    let stored: [UInt8]
    let codec: PageReference.Codec
    let rawLength: UInt32
    /// SHA-256 of the stored bytes.
    let digest: SHA256Hash
    /// The key its parent names it by (a leaf's first entry's; empty where none is needed).
    let key: [UInt8]

    /// - Throws: `invalidRecord` when `raw` is over the 4 MiB page bound.
    init(raw: [UInt8], key: [UInt8]) throws {
        guard raw.count <= Int(FormatBounds.maxPageLength) else {
            throw WebArcError.invalidRecord(url: "", reason: "a page of \(raw.count) bytes is over the 4 MiB bound")
        }
        var stored = raw
        var codec = PageReference.Codec.raw
        if let compressed = raw.withUnsafeBytes({ LZ4.compressedIfSmaller($0, level: 1) }),
            FormatBounds.ratioAllowed(stored: UInt32(compressed.count), raw: UInt32(raw.count))
        {
            stored = compressed
            codec = .lz4
        }
        self.stored = stored
        self.codec = codec
        rawLength = UInt32(raw.count)
        digest = SHA256Hash.of(stored)
        self.key = key
    }
}
