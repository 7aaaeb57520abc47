import Foundation

/// A compact update read against its bases (Spec/compact-update.md §2–§6): the target's metadata
/// and appendix, and its records in record-tree order, each with where its body comes from.
///
/// Reading checks the bases first (`badBase`, before any section is read), then every section:
/// each frame's declared size against 2^27 before anything is allocated, each count against the
/// base's key and record counts or the bytes left, each dictionary's length before it is built.
struct CompactPlan {
    /// Where a record of the target comes from.
    enum Source {
        /// A record of the base view, copied from this layer with its body.
        case base(layer: Int)
        /// A touched key's record; a response's body is that of a base record, `response` of
        /// layer `layer` (boxed: every record of the target has a source).
        indirect case baseBody(layer: Int, response: ResponseRecord)
        /// A touched key's response whose body is new body `number`.
        case newBody(Int)
        /// A touched key's redirect.
        case none
    }

    let header: CompactUpdate.Header
    let metadata: ArchiveMetadata
    let appendix: [UInt8]
    /// Base key ordinals the update drops.
    private let dropped: Set<Int>
    /// The records of each changed base key (by ordinal), each with its source.
    private let replaced: [Int: [(ArchiveRecord, Source)]]
    /// The added keys in key order, with their records and sources.
    private let added: [(key: String, records: [(ArchiveRecord, Source)])]
    let newBodies: [[UInt8]]
    /// The MD5 of each of ``newBodies``.
    let newBodyDigests: [BodyDigest]
    let base: CompactBaseView

    /// The fixed part of `bytes`, and where the sections start.
    ///
    /// - Throws: `badCompact` for a wrong magic, version or a cut header.
    static func header(_ bytes: [UInt8]) throws -> (CompactUpdate.Header, Int) {
        var cursor = CompactCursor(bytes, section: "header", decoded: false)
        guard bytes.count >= CompactUpdate.magic.count,
            Array(bytes[0..<CompactUpdate.magic.count]) == CompactUpdate.magic
        else {
            throw cursor.problem("not a compact update (no \\x89WEBARCU magic)")
        }
        _ = try cursor.take(CompactUpdate.magic.count, "magic")
        let version = bytes[try cursor.take(1, "version").lowerBound]
        guard CompactUpdate.readableVersions.contains(version) else {
            throw cursor.problem(
                "compact update version \(version); this webarc reads versions \(CompactUpdate.readableVersions.lowerBound) to \(CompactUpdate.readableVersions.upperBound)",
                at: 8)
        }
        let count = Int(bytes[try cursor.take(1, "base count").lowerBound])
        guard count > 0 else { throw cursor.problem("no bases", at: 9) }
        var bases: [BaseArchive] = []
        for _ in 0..<count {
            let digest = Array(bytes[try cursor.take(32, "base digest")])
            bases.append(
                BaseArchive(
                    digest: digest, archiveLength: UInt64(try cursor.number("base archiveLength", bound: 1 << 62))))
        }
        let digest = Array(bytes[try cursor.take(32, "target digest")])
        let length = UInt64(try cursor.number("target archiveLength", bound: 1 << 62))
        let bodyData =
            version >= 2 ? SHA256Hash(bytes: Array(bytes[try cursor.take(32, "target body data digest")])) : nil
        return (
            CompactUpdate.Header(
                bases: bases, targetDigest: digest, targetLength: length, targetBodyData: bodyData, version: version),
            cursor.position
        )
    }

    /// The extents of the index, records and bodies sections (each a frame, or empty), which fill
    /// `bytes` from `start` to its end.
    ///
    /// - Throws: `badCompact` for a length past the end or bytes after the last section.
    static func sections(_ bytes: [UInt8], after start: Int) throws -> [Range<Int>] {
        var file = CompactCursor(bytes, section: "compact update", decoded: false)
        _ = try file.take(start, "header")
        let extents = try CompactUpdate.sectionNames.map { section in
            try file.take(
                try file.number("\(section) section length", bound: UInt64(file.remaining)), "\(section) section")
        }
        try file.requireEnd()
        return extents
    }

    /// Checks that `stack` is the update's bases, in order.
    ///
    /// - Throws: `badBase` naming the bases expected and given.
    static func checkBases(_ header: CompactUpdate.Header, _ stack: LayerStack, path: String) throws {
        let given = stack.layers.map { BaseArchive(digest: $0.archiveDigest, archiveLength: $0.archiveLength) }
        guard given != header.bases else { return }
        func list(_ bases: [BaseArchive]) -> String {
            bases.map { "\($0.digest.map { String(format: "%02x", $0) }.joined()) (\($0.archiveLength) bytes)" }.joined(
                separator: ", ")
        }
        throw WebArcError.badBase(
            reason:
                "\(path) was made over \(list(header.bases)); given \(stack.layers.map(\.path).joined(separator: ", ")): \(list(given))"
        )
    }

    /// Reads `bytes` (the compact update at `path`) against `stack`.
    ///
    /// - Throws: `badCompact`, `badBase`; read errors of the bases.
    init(_ bytes: [UInt8], stack: LayerStack, path: String) throws {
        let (header, start) = try Self.header(bytes)
        try Self.checkBases(header, stack, path: path)
        self.header = header
        let base = CompactBaseView(stack)
        self.base = base
        // The view is read in passes, each keeping only what the sections name: its counts first
        // (which bound the index), then the dictionary keys' records, then the records the body
        // sources and previous versions name.
        let (keyCount, recordCount) = try base.counts()
        let frames = try Self.sections(bytes, after: start).map { (offset: UInt64($0.lowerBound), range: $0) }
        func decode(_ number: Int, _ name: String, prefix: [UInt8]) throws -> CompactCursor {
            let (offset, range) = frames[number]
            guard !range.isEmpty else { return CompactCursor([], section: name, offset: offset, decoded: true) }
            switch ZstdFrame.decode(bytes[range], prefix: prefix, bound: CompactUpdate.maxSection) {
            case .success(let content):
                return CompactCursor(content, section: "\(name) section", offset: offset, decoded: true)
            case .failure(let problem):
                throw WebArcError.badCompact(
                    offset: offset, section: "\(name) section", position: nil, reason: problem.description)
            }
        }

        // Index (§3).
        var index = try decode(0, "index", prefix: [])
        var dropped = Set<Int>()
        var last = -1
        for _ in 0..<(try index.number("dropped keys", bound: UInt64(keyCount))) {
            last += 1 + (try index.number("dropped key gap", bound: UInt64(keyCount)))
            guard last < keyCount else { throw index.problem("dropped key ordinal \(last) of \(keyCount) keys") }
            dropped.insert(last)
        }
        var touched: [(changed: Int?, dictionary: Int?)] = []
        last = -1
        for _ in 0..<(try index.number("touched keys", bound: UInt64(keyCount + CompactUpdate.maxAddedKeys))) {
            let tag = try index.number("touched key tag", bound: UInt64(2 * keyCount + 2))
            if tag % 2 == 0 {
                last += 1 + tag / 2
                guard last < keyCount else { throw index.problem("changed key ordinal \(last) of \(keyCount) keys") }
                guard !dropped.contains(last) else { throw index.problem("key \(last) is both dropped and changed") }
                touched.append((last, last))
            } else {
                let hint = tag / 2
                guard hint <= keyCount else { throw index.problem("added key hint \(hint) of \(keyCount) keys") }
                touched.append((nil, hint == 0 ? nil : hint - 1))
            }
        }
        try index.requireEnd()

        // Records (§4).
        let dictionaryKeys = try base.keys(Set(touched.compactMap(\.dictionary)))
        var dictionaryObjects: [UInt8] = []
        var dictionaryHeaders: [UInt8] = []
        for key in touched {
            guard let ordinal = key.dictionary else { continue }
            let (objects, headers) = dictionaryKeys[ordinal]!.compactRecords
            dictionaryObjects += objects
            dictionaryHeaders += headers
            guard dictionaryObjects.count + dictionaryHeaders.count <= CompactUpdate.maxSection else {
                throw WebArcError.badCompact(
                    offset: frames[1].offset, section: "records section", position: nil,
                    reason: "its dictionary is over \(CompactUpdate.maxSection) bytes")
            }
        }
        var records = try decode(
            1, "records", prefix: try base.nearestArchiveObject() + dictionaryObjects + dictionaryHeaders)
        let metadataRange = try records.object("target Archive object")
        let metadata = try Self.parsing(records, at: metadataRange.lowerBound) {
            let object = try DecodedObject(records.bytes, range: metadataRange, page: records.offset)
            return try RecordObjects.metadata(object)
        }
        guard metadata.writer != nil, metadata.bases.isEmpty, metadata.target == nil else {
            throw records.problem(
                "the target Archive object has no Writer, or names bases or a target", at: metadataRange.lowerBound)
        }
        self.metadata = metadata
        let appendixLength = try records.number("appendix length", bound: UInt64(FormatBounds.maxAppendixLength))
        appendix = Array(records.bytes[try records.take(appendixLength, "appendix")])
        var counts: [Int] = []
        for _ in touched {
            let count = try records.number("records of a touched key", bound: UInt64(records.remaining))
            guard count >= 1 else { throw records.problem("a touched key with no records") }
            counts.append(count)
        }
        var groups: [[ArchiveRecord]] = []
        for count in counts {
            var group: [ArchiveRecord] = []
            for _ in 0..<count {
                let range = try records.object("record")
                group.append(
                    try Self.parsing(records, at: range.lowerBound) {
                        try Self.compactRecord(records.bytes, range, records.offset)
                    })
            }
            groups.append(group)
        }
        for (number, group) in groups.enumerated() {
            for (position, record) in group.enumerated() {
                let at = records.position
                let count = try records.u32("headers")
                guard count <= records.remaining / 4, count % 2 == 0 else {
                    throw records.problem(
                        "compact headers: \(count) strings (odd, or more than the bytes left)", at: at)
                }
                var strings: [String] = []
                for _ in 0..<count {
                    let range = try records.take(try records.u32("header"), "header")
                    guard let text = UTF8Text.validated(records.bytes[range]) else {
                        throw records.problem("compact headers: a string that is not UTF-8", at: range.lowerBound)
                    }
                    strings.append(text)
                }
                let headers = [HTTPHeader](flattened: strings)
                switch record {
                case .response(var response):
                    response.headers = headers
                    groups[number][position] = .response(response)
                case .redirect(var redirect):
                    redirect.headers = headers
                    groups[number][position] = .redirect(redirect)
                case .tombstone: break
                }
            }
        }
        let (named, held) = try base.records(
            Self.namedOrdinals(records, groups: groups, recordCount: recordCount),
            holding: Set(
                zip(groups, touched).compactMap { group, key in
                    key.changed == nil ? try? group.first?.request.canonicalKey() : nil
                }))
        var sources: [Source] = []
        var introduced = 0
        var owners: [Int] = []
        for (number, group) in groups.enumerated() {
            for record in group {
                guard case .response = record else {
                    sources.append(.none)
                    continue
                }
                let at = records.position
                let source = try records.number("body source", bound: UInt64(2 * recordCount + 2 * introduced + 2))
                if source == 0 {
                    sources.append(.newBody(introduced))
                    owners.append(number)
                    introduced += 1
                } else if source % 2 == 1 {
                    guard source / 2 < recordCount, let response = named[source / 2]?.response else {
                        throw records.problem(
                            "body source: base record \(source / 2) is not a response of the base's \(recordCount) records",
                            at: at)
                    }
                    sources.append(.baseBody(layer: named[source / 2]!.layer, response: response))
                } else {
                    guard source / 2 - 1 < introduced else {
                        throw records.problem(
                            "body source: new body \(source / 2 - 1) is not introduced yet (\(introduced) are)", at: at)
                    }
                    sources.append(.newBody(source / 2 - 1))
                }
            }
        }
        var versions: [CompactBaseView.Record?] = []
        var dictionaryLength = 0
        for number in 0..<introduced {
            let at = records.position
            let code = try records.number("previous version", bound: UInt64(recordCount + 1))
            let version: CompactBaseView.Record?
            switch code {
            case 0: version = touched[owners[number]].changed.flatMap { dictionaryKeys[$0]!.defaultPrevious?.record }
            case 1: version = nil
            default:
                guard let record = named[code - 2], record.response != nil else {
                    throw records.problem("previous version: base record \(code - 2) is not a response", at: at)
                }
                version = record
            }
            dictionaryLength += 10 + Int(clamping: version?.response?.bodyLength ?? 0)
            guard dictionaryLength <= CompactUpdate.maxSection + 10 * introduced else {
                throw records.problem("the previous versions are over \(CompactUpdate.maxSection) bytes", at: at)
            }
            versions.append(version)
        }
        try records.requireEnd()

        // Bodies (§5).
        let prefix = try Self.previousVersions(versions, in: base, frame: frames[2].offset)
        var bodiesCursor = try decode(2, "bodies", prefix: prefix)
        var newBodies: [[UInt8]] = []
        for _ in 0..<introduced {
            let length = try bodiesCursor.number("body length", bound: UInt64(bodiesCursor.remaining))
            newBodies.append(Array(bodiesCursor.bytes[try bodiesCursor.take(length, "body")]))
        }
        try bodiesCursor.requireEnd()
        self.newBodies = newBodies
        // Each new body's MD5 (its content address, and the `ETag` its records rebuild), sixteen
        // bodies at a time: computed once here and handed to the writer, which then skips it.
        let newDigests = MD5Lanes.digestsOnEveryCore(of: newBodies)
        self.newBodyDigests = newDigests

        // The target's records (§6).
        var replaced: [Int: [(ArchiveRecord, Source)]] = [:]
        var added: [(key: String, records: [(ArchiveRecord, Source)])] = []
        var sourceIndex = 0
        var previousKey: [UInt8]?
        for (number, group) in groups.enumerated() {
            var planned: [(ArchiveRecord, Source)] = []
            var key: String?
            for record in group {
                let recordKey: String
                do {
                    recordKey = try record.request.canonicalKey()
                } catch {
                    throw WebArcError.badCompact(
                        offset: records.offset, section: "records section", position: nil,
                        reason: "a record's URL has no canonical key: \(error)")
                }
                guard key == nil || key == recordKey else {
                    throw WebArcError.badCompact(
                        offset: records.offset, section: "records section", position: nil,
                        reason: "one touched key's records name different keys")
                }
                key = recordKey
                var record = record
                let source = sources[sourceIndex]
                sourceIndex += 1
                if case .response(var response) = record {
                    let (length, md5): (UInt64, BodyDigest)
                    switch source {
                    case .newBody(let body):
                        (length, md5) = (UInt64(newBodies[body].count), newDigests[body])
                    case .baseBody(_, let baseResponse):
                        (length, md5) = (baseResponse.bodyLength, baseResponse.body.digest)
                    default:
                        (length, md5) = (0, response.body.digest)
                    }
                    switch CompactRecords.rebuilt(response.headers, length: length, md5: md5) {
                    case .success(let headers): response.headers = headers
                    case .failure(let problem):
                        throw WebArcError.badCompact(
                            offset: records.offset, section: "records section", position: nil, reason: problem.reason)
                    }
                    response.bodyLength = length
                    record = .response(response)
                }
                planned.append((record, source))
            }
            let bytes = Array(key!.utf8)
            if let previousKey, !KeyOrder.less(previousKey, bytes) {
                throw WebArcError.badCompact(
                    offset: records.offset, section: "records section", position: nil,
                    reason: "touched key \(key!) is not after the one before it")
            }
            previousKey = bytes
            if let changed = touched[number].changed {
                guard dictionaryKeys[changed]!.key == key! else {
                    throw WebArcError.badCompact(
                        offset: records.offset, section: "records section", position: nil,
                        reason: "changed key \(changed) is \(dictionaryKeys[changed]!.key), its records are \(key!)")
                }
                replaced[changed] = planned
            } else {
                guard !held.contains(key!) else {
                    throw WebArcError.badCompact(
                        offset: records.offset, section: "records section", position: nil,
                        reason: "added key \(key!) is in the base")
                }
                added.append((key!, planned))
            }
        }
        self.dropped = dropped
        self.replaced = replaced
        self.added = added
    }

    /// Calls `body` with the target's records in record-tree order, each with its source: the base
    /// view's, merged as it is read with the touched keys' (one pass over the bases' record pages).
    ///
    /// - Throws: ``WebArcError`` for a damaged base page; what `body` throws.
    func forEachRecord(_ body: (ArchiveRecord, Source, BodyEntry?) throws -> Void) throws {
        var addedIndex = 0
        func addBefore(_ bytes: [UInt8]?) throws {
            while addedIndex < added.count, bytes.map({ KeyOrder.less(Array(added[addedIndex].key.utf8), $0) }) ?? true
            {
                for (record, source) in added[addedIndex].records { try body(record, source, nil) }
                addedIndex += 1
            }
        }
        // Each base record's body entry goes to the writer with it (the third argument).
        try base.forEachKey(remembering: false) { key in
            try addBefore(Array(key.key.utf8))
            if dropped.contains(key.ordinal) { return true }
            if let planned = replaced[key.ordinal] {
                for (record, source) in planned { try body(record, source, Self.entry(of: source, in: key)) }
            } else {
                for record in key.records { try body(record.record, .base(layer: record.layer), record.body) }
            }
            return true
        }
        try addBefore(nil)
    }

    /// The body entry the base's leaf gave for a touched record's body, when that body is one of
    /// the same key's base records (a changed header keeps its body), so it is not looked up again.
    private static func entry(of source: Source, in key: CompactBaseView.Key) -> BodyEntry? {
        guard case .baseBody(let layer, let response) = source else { return nil }
        return key.records.first { $0.layer == layer && $0.response?.body == response.body }?.body
    }

    /// The base record ordinals the body sources and previous versions at `cursor` name (a scan of
    /// a copy of the cursor, read as the checks that follow read them, ending where they would
    /// fail), so that one pass over the view reads those records before they are checked.
    private static func namedOrdinals(_ cursor: CompactCursor, groups: [[ArchiveRecord]], recordCount: Int) -> Set<Int>
    {
        var scan = cursor
        var ordinals = Set<Int>()
        var introduced = 0
        for case .response in groups.joined() {
            guard let source = try? scan.number("", bound: UInt64(2 * recordCount + 2 * introduced + 2)) else {
                return ordinals
            }
            if source == 0 {
                introduced += 1
            } else if source % 2 == 1, source / 2 < recordCount {
                ordinals.insert(source / 2)
            }
        }
        for _ in 0..<introduced {
            guard let code = try? scan.number("", bound: UInt64(recordCount + 1)) else { return ordinals }
            if code >= 2 { ordinals.insert(code - 2) }
        }
        return ordinals
    }

    /// Runs `body`, turning the format errors of parsing an object into `badCompact` at its place.
    private static func parsing<T>(_ cursor: CompactCursor, at position: Int, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as WebArcError {
            switch error {
            case .corruptIndex, .corruptPage, .duplicateKey:
                throw cursor.problem("\(error.description)", at: error.pagePosition ?? position)
            default: throw error
            }
        }
    }

    /// A compact object (§4): a response or redirect, a response with a zero body and length.
    private static func compactRecord(_ bytes: [UInt8], _ range: Range<Int>, _ offset: UInt64) throws -> ArchiveRecord {
        let object = try DecodedObject(bytes, range: range, page: offset)
        switch try RecordObjects.parse(object) {
        case .record(.response(let response)):
            guard response.body.digest.bytes.allSatisfy({ $0 == 0 }), response.body.variant == 0,
                response.bodyLength == 0
            else {
                throw object.corrupt("a compact Response's body reference and length must be zero")
            }
            return .response(response)
        case .record(.redirect(let redirect)): return .redirect(redirect)
        default: throw object.corrupt("a compact record must be a Response or a Redirect")
        }
    }
}
