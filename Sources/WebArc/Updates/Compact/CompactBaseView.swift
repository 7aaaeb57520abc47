import Foundation

/// The layered view of a compact update's bases (Spec/compact-update.md §1): keys in *bytes*
/// order, numbered from 0 (key ordinals), and their records listed key by key (record ordinals),
/// each with the layer that holds it.
///
/// The view is read in passes, each a walk of the layers' record trees in key order that keeps
/// only the keys or records it was asked for: a builder or an applier holds the records of the
/// keys an update touches, never the bases' every record, whatever their size.
struct CompactBaseView {
    /// One record of the view and the layer of the stack holding it.
    struct Record {
        var layer: Int
        var record: ArchiveRecord
        /// A response's body entry, as its leaf copies it.
        var body: BodyEntry? = nil

        /// The record as a response, nil for a redirect.
        var response: ResponseRecord? {
            if case .response(let response) = record { return response }
            return nil
        }
    }

    /// One key of the view: its ordinal, its first record's ordinal and its records.
    struct Key {
        var ordinal: Int
        var key: String
        var firstRecord: Int
        var records: [Record]

        /// A changed key's default previous version (§4): its first response with a non-empty
        /// body, with its record ordinal.
        var defaultPrevious: (ordinal: Int, record: Record)? {
            guard let index = records.firstIndex(where: { ($0.response?.bodyLength ?? 0) > 0 }) else { return nil }
            return (firstRecord + index, records[index])
        }

        /// The compact objects, then the compact headers, of its records (§4's dictionary).
        var compactRecords: (objects: [UInt8], headers: [UInt8]) {
            var objects: [UInt8] = []
            var headers: [UInt8] = []
            for record in records {
                objects += CompactRecords.object(record.record)
                headers += CompactRecords.headers(record.record)
            }
            return (objects, headers)
        }
    }

    /// A body as one layer names it.
    struct LayerBody: Hashable {
        var layer: Int
        var body: BodyReference
    }

    let stack: LayerStack

    /// A view of `stack`; nothing is read until a pass.
    init(_ stack: LayerStack) {
        self.stack = stack
    }

    /// Thrown by a pass's body to end the walk early.
    struct Stop: Error {}

    /// Calls `body` with every key of the view in order (one pass over every layer's record
    /// pages); `body` returns false to end the pass there.
    ///
    /// - Parameter remembering: false leaves the layers' body caches out of the pass, for a
    ///   caller that reads a record's body entry from it (``Record/body``), never by reference.
    /// - Throws: ``WebArcError`` for a damaged page; what `body` throws.
    func forEachKey(remembering: Bool = true, _ body: (Key) throws -> Bool) throws {
        var ordinal = 0
        var firstRecord = 0
        do {
            try stack.forEachKey({ RecordCursor($0, remembering: remembering) }) {
                key, layer, entries in
                let records = entries.map { Record(layer: layer, record: $0.record, body: $0.body) }
                guard try body(Key(ordinal: ordinal, key: key, firstRecord: firstRecord, records: records)) else {
                    throw Stop()
                }
                ordinal += 1
                firstRecord += records.count
            }
        } catch is Stop {}
    }

    /// The view's key count and record count.
    ///
    /// - Throws: ``WebArcError`` for a damaged page.
    func counts() throws -> (keys: Int, records: Int) {
        var counts = (keys: 0, records: 0)
        try forEachSkimmedKey { key in
            counts = (key.ordinal + 1, key.firstRecord + key.records.count)
            return true
        }
        return counts
    }

    /// The keys whose ordinals are in `ordinals`, by ordinal (the pass ends after the last).
    ///
    /// - Throws: ``WebArcError`` for a damaged page or a damaged record of those keys.
    func keys(_ ordinals: Set<Int>) throws -> [Int: Key] {
        var found: [Int: Key] = [:]
        guard let last = ordinals.max() else { return found }
        try forEachSkimmedKey { key in
            if ordinals.contains(key.ordinal) { found[key.ordinal] = try decoded(key) }
            return key.ordinal < last
        }
        return found
    }

    /// The records whose ordinals are in `ordinals`, by ordinal, and those of `keys` the view
    /// holds.
    ///
    /// - Throws: ``WebArcError`` for a damaged page or a damaged record of those.
    func records(_ ordinals: Set<Int>, holding keys: Set<String>) throws -> (records: [Int: Record], held: Set<String>)
    {
        var found: [Int: Record] = [:]
        var held = Set<String>()
        guard !ordinals.isEmpty || !keys.isEmpty else { return (found, held) }
        let last = ordinals.max() ?? -1
        try forEachSkimmedKey { key in
            if keys.contains(key.key) { held.insert(key.key) }
            for index in key.records.indices where ordinals.contains(key.firstRecord + index) {
                found[key.firstRecord + index] = try decoded(key, at: index)
            }
            return !keys.isEmpty || key.firstRecord + key.records.count <= last
        }
        return (found, held)
    }

    /// The ordinal of the first record answering with each of `bodies` (each a body of a layer).
    ///
    /// - Throws: ``WebArcError`` for a damaged page.
    func firstRecords(answering bodies: Set<LayerBody>) throws -> [LayerBody: Int] {
        var found: [LayerBody: Int] = [:]
        guard !bodies.isEmpty else { return found }
        try forEachKey { key in
            for (index, record) in key.records.enumerated() {
                guard let response = record.response else { continue }
                let body = LayerBody(layer: record.layer, body: response.body)
                if found[body] == nil, bodies.contains(body) { found[body] = key.firstRecord + index }
            }
            return found.count < bodies.count
        }
        return found
    }

    /// The verified bytes of `record`'s body: every chunk checked against its SHA-256 digest,
    /// which the base's archive digest binds (spec §11.1), so the body's MD5 and body hash,
    /// computed from the same bytes, are not computed again.
    ///
    /// - Throws: ``WebArcError`` for a damaged chunk or a body whose chunks do not add up to its length.
    func body(_ record: Record) throws -> [UInt8] {
        guard let response = record.response else { return [] }
        return try body(layer: record.layer, response.body, entry: record.body)
    }

    /// The verified bytes of body `reference` of layer `layer`, as ``body(_:)`` reads them.
    ///
    /// - Parameter known: its entry when the caller has it (from the record's leaf).
    /// - Throws: as ``body(_:)``.
    func body(layer: Int, _ reference: BodyReference, entry known: BodyEntry? = nil) throws -> [UInt8] {
        let reader = stack.layers[layer]
        let entry = try reader.bodyEntry(reference, known: known)
        try entry.checkLength()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(min(entry.length, UInt64(CompactUpdate.maxSection))))
        var chunks = try reader.makeChunkIterator(for: entry)
        while let piece = try chunks.next() { bytes += piece }
        guard bytes.count == entry.length else {
            throw WebArcError.bodyDigest(
                body: entry.reference, offset: entry.firstChunkOffset,
                reason: "decodes to \(bytes.count) bytes, its entry says \(entry.length)")
        }
        return bytes
    }

    /// The length of `record`'s body as its body entry gives it (0 for a redirect).
    ///
    /// - Throws: ``WebArcError`` for a body entry that does not read or is out of bounds.
    func bodyLength(_ record: Record) throws -> Int {
        guard let response = record.response else { return 0 }
        let entry = try stack.layers[record.layer].bodyEntry(response.body, known: record.body)
        try entry.checkLength()
        return Int(entry.length)
    }

    /// Decodes `record`'s body, verified as ``body(_:)`` does, into `slot`, which holds
    /// ``bodyLength(_:)`` bytes; safe to call for several records at once.
    ///
    /// - Throws: ``WebArcError`` for a damaged chunk or a body whose chunks do not add up to `slot`.
    func body(_ record: Record, into slot: UnsafeMutableRawBufferPointer) throws {
        guard let response = record.response else { return }
        let reader = stack.layers[record.layer]
        let entry = try reader.bodyEntry(response.body, known: record.body)
        var filled = 0
        var chunks = try reader.makeChunkIterator(for: entry)
        while let piece = try chunks.next() {
            guard piece.count <= slot.count - filled else {
                throw WebArcError.bodyDigest(
                    body: entry.reference, offset: entry.firstChunkOffset,
                    reason: "decodes to more than the \(slot.count) bytes its entry says")
            }
            piece.withUnsafeBytes {
                (slot.baseAddress! + filled).copyMemory(from: $0.baseAddress!, byteCount: $0.count)
            }
            filled += piece.count
        }
        guard filled == slot.count else {
            throw WebArcError.bodyDigest(
                body: entry.reference, offset: entry.firstChunkOffset,
                reason: "decodes to \(filled) bytes, its entry says \(slot.count)")
        }
    }

    /// The bytes of the `Archive` object the nearest base's metadata page holds.
    ///
    /// - Throws: page errors.
    func nearestArchiveObject() throws -> [UInt8] {
        try stack.layers[0].metadataObjectBytes()
    }
}
