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
            let allBodies = bodies.values.flatMap { $0 }.sorted { $0.reference < $1.reference }
            // The body tree's leaves are encoded, compressed and hashed on a second core while this
            // one sorts the records and prepares the record tree's leaves; both are placed in order
            // afterwards (the body data's writers are done by now, so a core is free).
            let bodyLeaves = Mutex<Result<[PreparedPage], any Error>?>(nil)
            let bodyLeavesReady = DispatchGroup()
            DispatchQueue.global().async(group: bodyLeavesReady) {
                let prepared = Self.bodyLeaves(allBodies)
                bodyLeaves.withLock { $0 = prepared }
            }
            let sorted = sortedRecords()
            var treePositions = [Int](repeating: 0, count: sorted.count)
            for (position, record) in sorted.enumerated() { treePositions[record.order] = position }
            metadata.writer = WriterRecipe(
                level: options.compressionLevel, dictionaryInterval: anchors.interval, zstdLevel: options.zstdLevel,
                order: InsertionOrder(positions: treePositions), anchors: anchors.plan.rule, placement: options.dictionaryPlacement)
            let recordLeaves = try self.recordLeaves(sorted)
            bodyLeavesReady.wait()
            let bodyRoot = try writeTree(leaves: try bodyLeaves.withLock { $0! }.get(), tree: .bodies)
            let recordRoot = try writeTree(leaves: recordLeaves, tree: .records)
            let metadataRaw = MetadataPage.encode(object: RecordObjects.archive(metadata).encoded())
            let metadataReference = try storePage(metadataRaw, height: 0)

            var trailer = Trailer(metadata: metadataReference, recordRoot: recordRoot, bodyRoot: bodyRoot)
            if hasTombstones || !metadata.bases.isEmpty { trailer.requiredFeatures.insert(.layer) }
            if allBodies.contains(where: { $0.chunks.contains { $0.codec == .lz4Dictionary || $0.reference?.codec == .lz4Dictionary } }) {
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
                        reason: "the result has archive digest \(SHA256Hash(bytes: digest)!.hex) and length \(trailer.archiveLength), "
                            + "the update names \((SHA256Hash(bytes: expected.digest)?.hex ?? "?")) and \(expected.archiveLength)")
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
            if lhs.key != rhs.key { return KeyOrder.less(lhs.key, rhs.key) }
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

    /// The record tree's leaves (records grouped by key, each leaf with copies of the body entries
    /// its responses name), prepared.
    private func recordLeaves(_ sorted: [PendingRecord]) throws -> [PreparedPage] {
        var groups: [[PendingRecord]] = []
        for record in sorted {
            if let last = groups.last?.first, last.key == record.key { groups[groups.count - 1].append(record) } else { groups.append([record]) }
        }
        var leaves: [PreparedPage] = []
        var page: [PendingRecord] = []
        var pageBodies = Set<BodyReference>()
        var used = RecordLeaf.headSize
        func flush() throws {
            let entries = pageBodies.sorted().map { storedBody($0)! }
            let raw = RecordLeaf.encode(records: page.map { ($0.key, $0.object) }, bodies: entries)
            guard raw.count <= Int(FormatBounds.maxPageLength) else {
                throw WebArcError.invalidRecord(url: page.first?.url ?? "", reason: "its records need a page of \(raw.count) bytes, over the 4 MiB bound")
            }
            leaves.append(try PreparedPage(raw: raw, key: page.first?.key ?? []))
            page = []
            pageBodies = []
            used = RecordLeaf.headSize
        }
        for group in groups {
            let recordsSize = group.reduce(0) { $0 + RecordLeaf.entrySize(key: $1.key, object: $1.object) }
            // The bodies the group names, once each (a group is a key's few records).
            var named: [BodyReference] = []
            for case let body? in group.lazy.map(\.body) where !named.contains(body) { named.append(body) }
            var extra = recordsSize + named.reduce(0) { pageBodies.contains($1) ? $0 : $0 + storedBody($1)!.encodedSize }
            if !page.isEmpty && used + extra > PagePacking.target {
                try flush()
                extra = recordsSize + named.reduce(0) { $0 + storedBody($1)!.encodedSize }
            }
            page += group
            pageBodies.formUnion(named)
            used += extra
        }
        try flush()
        return leaves
    }

    /// Builds interior levels over `level` until one page remains, writing each level bottom up;
    /// returns the root's reference.
    private func writeInteriorLevels(_ leaves: [(key: [UInt8], child: PageReference)], tree: Page.Tree) throws -> PageReference {
        var level = leaves
        var height: UInt8 = 0
        while level.count > 1 {
            height += 1
            var next: [(key: [UInt8], child: PageReference)] = []
            for page in PagePacking.pack(level, headSize: InteriorPage.headSize, size: { InteriorPage.entrySize(key: $0.key) }) {
                next.append((page[0].key, try storePage(InteriorPage.encode(tree: tree, entries: page), height: height)))
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
            offset: output.length, storedLength: UInt32(page.stored.count), rawLength: page.rawLength, codec: page.codec, height: height,
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
