import Foundation

/// Writes a compact update: what turns an old archive (or stack) into a new one, in its transport
/// form (Spec/compact-update.md).
///
/// ```swift
/// let old = try LayerStack([try ArchiveReader(path: "site-1.webarc")])
/// let summary = try CompactUpdateBuilder(old: old, new: try ArchiveReader(path: "site-2.webarc"))
///     .write(to: "site-1-to-2.webarcu")
/// ```
///
/// Keys are compared as ``UpdateBuilder`` compares them (records equal, bodies equal by length,
/// MD5 and SHA-256); a changed body is coded against the body the old stack answered its key with,
/// a body new under its URL against the most similar body of the old stack,
/// all of them in one Zstandard frame, so an edit repeated across pages costs about once.
public struct CompactUpdateBuilder {
    /// The archives the update goes over, top first.
    public let old: LayerStack
    /// The archive applying the update must give.
    public let new: ArchiveReader

    /// What the builder found and wrote.
    public struct Summary: Sendable, Equatable {
        /// Keys of the new archive the old stack holds the same.
        public var unchangedKeys = 0
        /// Keys whose records differ.
        public var changedKeys = 0
        /// Of ``changedKeys``, those whose records differ only outside their bodies (headers,
        /// status): each response keeps its body, each redirect its target.
        public var headerOnlyKeys = 0
        /// Keys the old stack does not hold.
        public var addedKeys = 0
        /// Keys the new archive dropped.
        public var deletedKeys = 0
        /// Bodies no base holds, and their bytes.
        public var newBodies = 0
        public var newBodyBytes: UInt64 = 0
        /// New bodies coded against a similar body of a key of their own.
        public var similarBodies = 0
        /// Bytes of the index, records and bodies sections, and of the whole update.
        public var indexBytes = 0
        public var recordsBytes = 0
        public var bodiesBytes = 0
        public var bytes = 0

        /// An empty summary.
        public init() {}
    }

    /// Makes a builder for the compact update from `old` (top first) to `new`.
    public init(old: LayerStack, new: ArchiveReader) {
        self.old = old
        self.new = new
    }

    /// Writes the compact update to `path` atomically.
    ///
    /// - Throws: what ``encode(progress:)`` throws; I/O errors; nothing is left at `path` on failure.
    public func write(to path: String, overwrite: Bool = false, progress: ((Int, Int) -> Void)? = nil) throws -> Summary
    {
        let (bytes, summary) = try encode(progress: progress)
        let file = try OutputFile(targetPath: path, overwrite: overwrite)
        try file.append(bytes)
        try file.commit(overwrite: overwrite)
        return summary
    }

    /// The compact update's bytes.
    ///
    /// - Throws: `badTarget` when the new archive cannot be written again (no writer recipe, or an
    ///   update itself) or its new bodies are over the format's bound (2^27 bytes: ship the update
    ///   archive instead); `badBase` for a stack of more than 255 archives; read errors.
    public func encode(progress: ((Int, Int) -> Void)? = nil) throws -> (bytes: [UInt8], summary: Summary) {
        _ = try UpdateBuilder.writableMetadata(of: new)
        guard old.layers.count <= 255 else {
            throw WebArcError.badBase(
                reason: "a compact update goes over at most 255 archives, \(old.layers.count) given")
        }
        let base = try CompactBaseView(old)
        var newGroups: [(key: String, entries: [ArchiveEntry])] = []
        try LayerStack([new]).forEachKey { key, records in newGroups.append((key, records.entries)) }
        var state = EncodingState(base: base)
        try state.indexFirstBodies()
        let similar = SimilarBodies(stack: old, records: base.records.lazy.map { ($0.layer, $0.record) })

        // Each touched key with its changed base key, or for an added key its hint (§3: the base
        // key right before it, where the walk stands), whose records are its dictionary.
        var touched: [(key: String, entries: [ArchiveEntry], changed: Int?, dictionary: Int?)] = []
        var dropped: [Int] = []
        var next = 0
        var index: [UInt8] = []
        var tags: [UInt8] = []
        var lastChanged = -1
        for (done, group) in newGroups.enumerated() {
            defer { progress?(done + 1, newGroups.count) }
            let bytes = Array(group.key.utf8)
            while next < base.keys.count, KeyOrder.less(Array(base.keys[next].utf8), bytes) {
                dropped.append(next)
                next += 1
            }
            if next < base.keys.count, base.keys[next] == group.key {
                let ordinal = next
                next += 1
                let comparison = try compare(group.entries, base: base, key: ordinal)
                if comparison == .same {
                    state.summary.unchangedKeys += 1
                    continue
                }
                if comparison == .headersOnly { state.summary.headerOnlyKeys += 1 }
                tags.appendLEB128(2 * (ordinal - lastChanged - 1))
                lastChanged = ordinal
                touched.append((group.key, group.entries, ordinal, ordinal))
                state.summary.changedKeys += 1
            } else {
                tags.appendLEB128(2 * next + 1)
                touched.append((group.key, group.entries, nil, next > 0 ? next - 1 : nil))
                state.summary.addedKeys += 1
            }
        }
        dropped += Array(next..<base.keys.count)
        state.summary.deletedKeys = dropped.count
        index.appendLEB128(dropped.count)
        var last = -1
        for ordinal in dropped {
            index.appendLEB128(ordinal - last - 1)
            last = ordinal
        }
        index.appendLEB128(touched.count)
        index += tags

        var dictionaryObjects: [UInt8] = []
        var dictionaryHeaders: [UInt8] = []
        for key in touched {
            if let dictionaryKey = key.dictionary {
                let (objects, headers) = base.compactRecords(ofKey: dictionaryKey)
                dictionaryObjects += objects
                dictionaryHeaders += headers
            }
            state.counts.appendLEB128(key.entries.count)
            for entry in key.entries {
                state.objects += CompactRecords.object(entry.record)
                state.headers += CompactRecords.headers(entry.record)
                guard case .response(let response) = entry.record else { continue }
                try state.addBody(response, of: new, changedKey: key.changed, similar: similar)
            }
        }
        var records = try new.metadataObjectBytes()
        let appendix = try new.appendixBytes()
        records.appendLEB128(appendix.count)
        records += appendix + state.counts + state.objects + state.headers + state.sources + state.previous
        let recordsDictionary = try base.nearestArchiveObject() + dictionaryObjects + dictionaryHeaders
        guard records.count <= CompactUpdate.maxSection, recordsDictionary.count <= CompactUpdate.maxSection,
            index.count <= CompactUpdate.maxSection
        else {
            throw WebArcError.badTarget(
                reason:
                    "the changed records are over \(CompactUpdate.maxSection) bytes: too many for a compact update (write the update archive)"
            )
        }

        var out = CompactUpdate.magic + [CompactUpdate.version, UInt8(old.layers.count)]
        for layer in old.layers {
            out += layer.archiveDigest
            out.appendLEB128(Int(layer.archiveLength))
        }
        out += new.archiveDigest
        out.appendLEB128(Int(new.archiveLength))
        out += try new.bodyDataDigest().bytes
        var summary = state.summary
        for (content, dictionary, size) in [
            (index, [UInt8](), \Summary.indexBytes), (records, recordsDictionary, \Summary.recordsBytes),
            (state.bodyStream, state.bodyPrevious, \Summary.bodiesBytes),
        ] {
            var frame: [UInt8] = []
            if !content.isEmpty {
                guard let coded = ZstdFrame.encode(content, prefix: dictionary) else {
                    throw WebArcError.badTarget(reason: "Zstandard could not code a section of \(content.count) bytes")
                }
                frame = coded
            }
            out.appendLEB128(frame.count)
            out += frame
            summary[keyPath: size] = frame.count
        }
        summary.bytes = out.count
        return (out, summary)
    }

    /// How the new archive's records of a key compare with the base view's (each base record in its layer).
    private func compare(_ entries: [ArchiveEntry], base: CompactBaseView, key: Int) throws -> RecordComparison {
        let range = base.recordRange(ofKey: key)
        guard entries.count == range.count, let layer = range.first.map({ base.records[$0].layer }) else {
            return entries.isEmpty && range.isEmpty ? .same : .changed
        }
        return try UpdateBuilder.compare(
            entries.map(\.record), in: new, range.map { base.records[$0].record }, in: old.layers[layer])
    }
}

/// The columns of the records section and the bodies stream, filled record by record.
private struct EncodingState {
    struct BodyKey: Hashable {
        var md5: BodyDigest
        var length: UInt64
        var sha256: SHA256Hash
    }

    let base: CompactBaseView
    var summary = CompactUpdateBuilder.Summary()
    var counts: [UInt8] = []
    var objects: [UInt8] = []
    var headers: [UInt8] = []
    var sources: [UInt8] = []
    var previous: [UInt8] = []
    var bodyStream: [UInt8] = []
    var bodyPrevious: [UInt8] = []
    /// A body of the base view → the first record answering with it.
    var firstBody: [BodyKey: Int] = [:]
    /// A new body → its number.
    var newBodies: [BodyKey: Int] = [:]

    init(base: CompactBaseView) { self.base = base }

    mutating func indexFirstBodies() throws {
        for (ordinal, record) in base.records.enumerated() {
            guard case .response(let response) = record.record else { continue }
            let entry = try base.stack.layers[record.layer].bodyEntry(response.body)
            let key = BodyKey(md5: entry.reference.digest, length: entry.length, sha256: entry.sha256)
            if firstBody[key] == nil { firstBody[key] = ordinal }
        }
    }

    /// Adds a response's body source and, for a new body, its previous version and bytes.
    mutating func addBody(
        _ response: ResponseRecord, of new: ArchiveReader, changedKey: Int?, similar: SimilarBodies
    ) throws {
        let entry = try new.bodyEntry(response.body)
        let key = BodyKey(md5: entry.reference.digest, length: entry.length, sha256: entry.sha256)
        if let ordinal = firstBody[key] {
            sources.appendLEB128(2 * ordinal + 1)
            return
        }
        if let number = newBodies[key] {
            sources.appendLEB128(2 * number + 2)
            return
        }
        newBodies[key] = newBodies.count
        sources.appendLEB128(0)
        let bytes = [UInt8](try new.body(response.body))
        var version: Int?
        var code: Int
        if let changedKey, let fallback = base.defaultPrevious(ofKey: changedKey) {
            version = fallback
            code = 0
        } else {
            if let found = try similar.previousVersion(of: entry, in: new, mimeType: response.mimeType),
                let ordinal = base.firstByLayerBody[
                    CompactBaseView.LayerBody(layer: found.base, body: found.body.reference)]
            {
                version = ordinal
                summary.similarBodies += 1
            }
            code = version.map { $0 + 2 } ?? 1
        }
        var versionBytes = try version.map(base.body) ?? []
        if bodyPrevious.count + versionBytes.count + 10 > CompactUpdate.maxSection {
            // The dictionary is bounded (§5): later bodies are coded without a previous version.
            versionBytes = []
            code = 1
        }
        previous.appendLEB128(code)
        bodyPrevious.appendLEB128(versionBytes.count)
        bodyPrevious += versionBytes
        bodyStream.appendLEB128(bytes.count)
        bodyStream += bytes
        summary.newBodies += 1
        summary.newBodyBytes += UInt64(bytes.count)
        guard bodyStream.count <= CompactUpdate.maxSection else {
            throw WebArcError.badTarget(
                reason:
                    "the new bodies are over \(CompactUpdate.maxSection) bytes: too large for a compact update (write the update archive)"
            )
        }
    }
}
