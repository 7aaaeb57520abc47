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

    /// The most bytes a section holds (``CompactUpdate/maxSection``); smaller in tests.
    var sectionLimit = CompactUpdate.maxSection

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
    ///   update itself); `compactTooLarge` when a section would be over the format's bound (2^27
    ///   bytes: ship the update archive instead), as soon as the walk finds the base's versions
    ///   over it; `badBase` for a stack of more than 255 archives; read errors.
    public func encode(progress: ((Int, Int) -> Void)? = nil) throws -> (bytes: [UInt8], summary: Summary) {
        _ = try UpdateBuilder.writableMetadata(of: new)
        guard old.layers.count <= 255 else {
            throw WebArcError.badBase(
                reason: "a compact update goes over at most 255 archives, \(old.layers.count) given")
        }
        let base = CompactBaseView(old)
        var state = EncodingState(base: base)

        // One walk of the base view beside the new archive's keys: each touched key with its
        // changed base key's records, or for an added key its hint (§3: the base key right before
        // it, where the walk stands), whose records are its dictionary.
        var touched: [Touched] = []
        var dropped: [Int] = []
        var tags: [UInt8] = []
        var dictionaryObjects: [UInt8] = []
        var dictionaryHeaders: [UInt8] = []
        var lastChanged = -1
        var newKeys = KeyGroups(RecordCursor(new))
        var pending = try newKeys.next()
        var recordsDone = 0
        var previous: CompactBaseView.Key?
        func take() throws -> (key: String, entries: [ArchiveEntry]) {
            let group = pending!
            pending = try newKeys.next()
            recordsDone += group.entries.count
            progress?(recordsDone, new.recordCount)
            return (group.key, group.entries)
        }
        func add(_ group: (key: String, entries: [ArchiveEntry]), before next: Int) throws {
            tags.appendLEB128(2 * next + 1)
            if let previous { try appendDictionary(previous) }
            touched.append(Touched(key: group.key, entries: group.entries, changed: nil))
            state.summary.addedKeys += 1
        }
        func appendDictionary(_ key: CompactBaseView.Key) throws {
            let (objects, headers) = key.compactRecords
            dictionaryObjects += objects
            dictionaryHeaders += headers
            // The base's versions are one section's dictionary: past the bound the update cannot
            // be written, so the walk stops here, not after coding every key.
            guard dictionaryObjects.count + dictionaryHeaders.count <= sectionLimit else {
                throw WebArcError.compactTooLarge(section: "records' dictionary", limit: sectionLimit)
            }
        }
        try base.forEachKey { key in
            let bytes = Array(key.key.utf8)
            while let group = pending, KeyOrder.less(group.bytes, bytes) { try add(try take(), before: key.ordinal) }
            defer { previous = key }
            guard let group = pending, group.key == key.key else {
                dropped.append(key.ordinal)
                return true
            }
            let entries = try take().entries
            let comparison = try compare(entries, base: key)
            if comparison == .same {
                state.summary.unchangedKeys += 1
                return true
            }
            if comparison == .headersOnly { state.summary.headerOnlyKeys += 1 }
            tags.appendLEB128(2 * (key.ordinal - lastChanged - 1))
            lastChanged = key.ordinal
            try appendDictionary(key)
            touched.append(Touched(key: key.key, entries: entries, changed: key))
            state.summary.changedKeys += 1
            return true
        }
        let keyCount = previous.map { $0.ordinal + 1 } ?? 0
        while pending != nil { try add(try take(), before: keyCount) }
        state.summary.deletedKeys = dropped.count
        var index: [UInt8] = []
        index.appendLEB128(dropped.count)
        var last = -1
        for ordinal in dropped {
            index.appendLEB128(ordinal - last - 1)
            last = ordinal
        }
        index.appendLEB128(touched.count)
        index += tags

        try state.findFirstBodies(of: touched, in: new)
        for key in touched {
            state.counts.appendLEB128(key.entries.count)
            for entry in key.entries {
                state.objects += CompactRecords.object(entry.record)
                state.headers += CompactRecords.headers(entry.record)
                guard case .response(let response) = entry.record else { continue }
                try state.addBody(response, known: entry.body, of: new, changedKey: key.changed)
            }
        }
        try state.resolvePreviousVersions()
        var records = try new.metadataObjectBytes()
        let appendix = try new.appendixBytes()
        records.appendLEB128(appendix.count)
        records += appendix + state.counts + state.objects + state.headers + state.sources + state.previous
        let recordsDictionary = try base.nearestArchiveObject() + dictionaryObjects + dictionaryHeaders
        for (section, bytes) in [("records", records), ("records' dictionary", recordsDictionary), ("index", index)]
        where bytes.count > sectionLimit {
            throw WebArcError.compactTooLarge(section: section, limit: sectionLimit)
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
    private func compare(_ entries: [ArchiveEntry], base key: CompactBaseView.Key) throws -> RecordComparison {
        guard entries.count == key.records.count, let layer = key.records.first?.layer else {
            return entries.isEmpty && key.records.isEmpty ? .same : .changed
        }
        return try UpdateBuilder.compare(
            entries.map { ($0.record, $0.body) }, in: new, key.records.map { ($0.record, $0.body) },
            in: old.layers[layer])
    }
}

/// A key of the new archive whose records differ from the base view's, and its changed base key
/// (nil: an added key).
private struct Touched {
    var key: String
    var entries: [ArchiveEntry]
    var changed: CompactBaseView.Key?
}

/// The columns of the records section and the bodies stream, filled record by record.
private struct EncodingState {
    struct BodyKey: Hashable {
        var md5: BodyDigest
        var length: UInt64
        var sha256: SHA256Hash
    }

    /// A new body's previous version as the records section names it: a code, or the first base
    /// record answering with a body of a layer, found by a pass once every new body is known.
    enum PreviousCode {
        case code(Int)
        case firstRecord(CompactBaseView.LayerBody)
    }

    let base: CompactBaseView
    var summary = CompactUpdateBuilder.Summary()
    var counts: [UInt8] = []
    var objects: [UInt8] = []
    var headers: [UInt8] = []
    var sources: [UInt8] = []
    var previous: [UInt8] = []
    var previousCodes: [PreviousCode] = []
    var bodyStream: [UInt8] = []
    var bodyPrevious: [UInt8] = []
    /// A body of a touched key's response that the base view holds → the first record answering
    /// with it.
    var firstBody: [BodyKey: Int] = [:]
    /// A new body → its number.
    var newBodies: [BodyKey: Int] = [:]
    /// The old stack's bodies to find a previous version of a body new under its URL among, made
    /// when the first one is needed (it reads the whole view).
    var similar: SimilarBodies?

    init(base: CompactBaseView) { self.base = base }

    /// Finds, in one pass over the base view, the first record answering with each body the
    /// touched keys' responses have.
    mutating func findFirstBodies(of touched: [Touched], in new: ArchiveReader) throws {
        var wanted = Set<BodyKey>()
        for key in touched {
            for entry in key.entries {
                guard case .response(let response) = entry.record else { continue }
                let entry = try new.bodyEntry(response.body, known: entry.body)
                wanted.insert(BodyKey(md5: entry.reference.digest, length: entry.length, sha256: entry.sha256))
            }
        }
        guard !wanted.isEmpty else { return }
        let digests = Set(wanted.map(\.md5))
        var found: [BodyKey: Int] = [:]
        let stack = base.stack
        // Each record's body entry is its leaf's copy: no body tree lookup, no page kept.
        try base.forEachKey(remembering: false) { key in
            for (index, record) in key.records.enumerated() {
                guard let response = record.response, digests.contains(response.body.digest) else { continue }
                let entry = try stack.layers[record.layer].bodyEntry(response.body, known: record.body)
                let body = BodyKey(md5: entry.reference.digest, length: entry.length, sha256: entry.sha256)
                if found[body] == nil, wanted.contains(body) { found[body] = key.firstRecord + index }
            }
            return found.count < wanted.count
        }
        firstBody = found
    }

    /// Adds a response's body source and, for a new body, its previous version and bytes
    /// (`known`: the body entry its record's leaf gave, if any).
    mutating func addBody(
        _ response: ResponseRecord, known: BodyEntry?, of new: ArchiveReader, changedKey: CompactBaseView.Key?
    ) throws {
        let entry = try new.bodyEntry(response.body, known: known)
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
        var bytes: [UInt8] = []
        try new.verifyBody(entry) { bytes += $0 }
        var version: CompactBaseView.LayerBody?
        var code: PreviousCode
        if let fallback = changedKey?.defaultPrevious, let response = fallback.record.response {
            version = CompactBaseView.LayerBody(layer: fallback.record.layer, body: response.body)
            code = .code(0)
        } else {
            code = .code(1)
            if similar == nil { similar = try SimilarBodies(stack: base.stack) }
            if let found = try similar!.previousVersion(of: entry, in: new, mimeType: response.mimeType) {
                // A candidate is a body the view answers with, so a pass finds its first record.
                let body = CompactBaseView.LayerBody(layer: found.base, body: found.body.reference)
                version = body
                code = .firstRecord(body)
                summary.similarBodies += 1
            }
        }
        var versionBytes = try version.map { try base.body(layer: $0.layer, $0.body) } ?? []
        if bodyPrevious.count + versionBytes.count + 10 > CompactUpdate.maxSection {
            // The dictionary is bounded (§5): later bodies are coded without a previous version.
            versionBytes = []
            code = .code(1)
        }
        previousCodes.append(code)
        bodyPrevious.appendLEB128(versionBytes.count)
        bodyPrevious += versionBytes
        bodyStream.appendLEB128(bytes.count)
        bodyStream += bytes
        summary.newBodies += 1
        summary.newBodyBytes += UInt64(bytes.count)
        guard bodyStream.count <= CompactUpdate.maxSection else {
            throw WebArcError.compactTooLarge(section: "new bodies", limit: CompactUpdate.maxSection)
        }
    }

    /// Writes the previous-versions column, each similar body named by the first base record
    /// answering with it (one pass over the base view when there is any).
    mutating func resolvePreviousVersions() throws {
        var wanted = Set<CompactBaseView.LayerBody>()
        for case .firstRecord(let body) in previousCodes { wanted.insert(body) }
        let ordinals = try base.firstRecords(answering: wanted)
        for code in previousCodes {
            switch code {
            case .code(let value): previous.appendLEB128(value)
            case .firstRecord(let body):
                guard let ordinal = ordinals[body] else {
                    throw WebArcError.badTarget(
                        reason: "a similar body of layer \(body.layer) answers no key of the view")
                }
                previous.appendLEB128(ordinal + 2)
            }
        }
    }
}
