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
    /// records were added in; spec Appendix C step 7), whatever it held.
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
            let bodyDataEnd = output.length
            try output.startWritebackOfAll()
            // The body entries are sorted, and the body tree's leaves encoded, compressed and hashed,
            // on a second core while this one sorts the records and prepares the record tree's
            // leaves; both are placed in order afterwards (the body data's writers are done by now,
            // so a core is free).
            let bodiesByDigest = bodies
            let bodyTree = Mutex<(entries: [BodyEntry], leaves: Result<[PreparedPage], any Error>)?>(nil)
            let bodyTreeReady = DispatchGroup()
            DispatchQueue.global().async(group: bodyTreeReady) {
                let entries = bodiesByDigest.values.flatMap { $0 }.sorted { $0.reference < $1.reference }
                let leaves = Self.bodyLeaves(entries)
                bodyTree.withLock { $0 = (entries, leaves) }
            }
            let sorted = sortedRecords()
            var treePositions = [Int](repeating: 0, count: sorted.count)
            for (position, record) in sorted.enumerated() { treePositions[record.order] = position }
            metadata.writer = WriterRecipe(
                level: options.compressionLevel, dictionaryInterval: anchors.interval, zstdLevel: options.zstdLevel,
                order: InsertionOrder(positions: treePositions), anchors: anchors.plan.rule,
                placement: options.dictionaryPlacement)
            let recordLeaves = try self.recordLeaves(sorted)
            bodyTreeReady.wait()
            let (allBodies, bodyLeaves) = bodyTree.withLock { $0! }
            let bodyRoot = try writeTree(leaves: try bodyLeaves.get(), tree: .bodies)
            let recordRoot = try writeTree(leaves: recordLeaves, tree: .records)
            let metadataRaw = MetadataPage.encode(object: RecordObjects.archive(metadata).encoded())
            let metadataReference = try storePage(metadataRaw, height: 0)

            var trailer = Trailer(metadata: metadataReference, recordRoot: recordRoot, bodyRoot: bodyRoot)
            if hasTombstones || !metadata.bases.isEmpty { trailer.requiredFeatures.insert(.layer) }
            if allBodies.contains(where: {
                $0.chunks.contains { $0.codec == .lz4Dictionary || $0.reference?.codec == .lz4Dictionary }
            }) {
                trailer.requiredFeatures.insert(.dictionaryCodec)
            }
            if allBodies.contains(where: { $0.chunks.contains { $0.codec == .zstdDelta } }) {
                trailer.requiredFeatures.insert(.deltaCodec)
            }
            trailer.archiveLength = output.length + UInt64(Trailer.size)
            trailer.bodyDataEnd = bodyDataEnd
            trailer.recordCount = UInt64(records.count)
            trailer.bodyCount = UInt64(allBodies.count)
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

    /// The records in record-tree order (spec Appendix C step 5): key, then `captureDate`
    /// descending (absent last), then insertion order descending.
    private func sortedRecords() -> [PendingRecord] {
        records.sorted { lhs, rhs in
            let order = KeyOrder.compare(lhs.key, rhs.key)
            if order != 0 { return order < 0 }
            switch (lhs.date, rhs.date) {
            case let (left?, right?) where left != right: return left > right
            case (.some, nil): return true
            case (nil, .some): return false
            default: return lhs.order > rhs.order
            }
        }
    }

    /// The body tree's leaves, prepared.
    private static func bodyLeaves(_ entries: [BodyEntry]) -> Result<[PreparedPage], any Error> {
        Result {
            try PagePacking.pack(entries, headSize: BodyLeaf.headSize, size: { $0.encodedSize }).map { page in
                try PreparedPage(raw: BodyLeaf.encode(page), key: page.first?.reference.treeKey ?? [])
            }
        }
    }

    /// Appends a tree's leaves, then writes its interior levels, and returns the root's reference.
    private func writeTree(leaves: [PreparedPage], tree: Page.Tree) throws -> PageReference {
        try writeInteriorLevels(leaves.map { ($0.key, try append($0, height: 0)) }, tree: tree)
    }

    /// One record-tree leaf to encode: its records, in tree order, and the body entries they name.
    private struct RecordPage {
        var records: ArraySlice<PendingRecord>
        var bodies: [BodyEntry]
    }

    /// The record tree's leaves (records grouped by key, each leaf with copies of the body entries
    /// its responses name), prepared: where each leaf ends is settled here, in order; the leaves are
    /// then encoded, compressed and hashed on every core (``prepareInParallel(_:_:)``).
    private func recordLeaves(_ sorted: [PendingRecord]) throws -> [PreparedPage] {
        let pages = recordPages(sorted)
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
        return try prepared.map { try $0.get() }
    }

    /// The record tree's leaves as records and body entries: a key's records stay in one leaf, and a
    /// leaf takes groups while its records and the entries of the bodies they name fit
    /// ``PagePacking/target`` (spec Appendix C step 6).
    private func recordPages(_ sorted: [PendingRecord]) -> [RecordPage] {
        var pages: [RecordPage] = []
        var start = sorted.startIndex
        /// The entries of the bodies the page's records name so far.
        var pageBodies: [BodyReference: BodyEntry] = [:]
        var used = RecordLeaf.headSize
        func close(at end: Int) {
            pages.append(
                RecordPage(
                    records: sorted[start..<end], bodies: pageBodies.values.sorted { $0.reference < $1.reference }))
            start = end
            pageBodies = [:]
            used = RecordLeaf.headSize
        }
        var groupStart = sorted.startIndex
        while groupStart < sorted.endIndex {
            var groupEnd = groupStart + 1
            while groupEnd < sorted.endIndex && sorted[groupEnd].key == sorted[groupStart].key { groupEnd += 1 }
            let group = sorted[groupStart..<groupEnd]
            let recordsSize = group.reduce(0) { $0 + RecordLeaf.entrySize(key: $1.key, object: $1.object) }
            // The bodies the group names, once each (a group is a key's few records).
            var named: [BodyEntry] = []
            for case let body? in group.lazy.map(\.body) where !named.contains(where: { $0.reference == body }) {
                named.append(storedBody(body)!)
            }
            var extra = recordsSize + named.reduce(0) { pageBodies[$1.reference] == nil ? $0 + $1.encodedSize : $0 }
            if start < groupStart && used + extra > PagePacking.target {
                close(at: groupStart)
                extra = recordsSize + named.reduce(0) { $0 + $1.encodedSize }
            }
            for entry in named { pageBodies[entry.reference] = entry }
            used += extra
            groupStart = groupEnd
        }
        close(at: sorted.endIndex)
        return pages
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
    private func storePage(_ raw: [UInt8], height: UInt8) throws -> PageReference {
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
