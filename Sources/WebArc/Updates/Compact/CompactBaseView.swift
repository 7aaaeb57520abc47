import Foundation

/// The layered view of a compact update's bases (Spec/compact-update.md §1): keys in *bytes*
/// order, numbered from 0 (key ordinals), and their records listed key by key (record ordinals),
/// each with the layer that holds it.
struct CompactBaseView {
    /// One record of the view and the layer of the stack holding it.
    struct Record {
        var layer: Int
        var record: ArchiveRecord
    }

    let stack: LayerStack
    /// The view's keys in order.
    private(set) var keys: [String] = []
    /// Every record, key by key.
    private(set) var records: [Record] = []
    /// Key ordinal → its first record ordinal; one more entry holds the record count.
    private(set) var firstRecord: [Int] = []
    /// Key → its ordinal.
    private(set) var ordinals: [String: Int] = [:]
    /// (layer, body) → the first record ordinal answering with it.
    private(set) var firstByLayerBody: [LayerBody: Int] = [:]

    /// A body as one layer names it.
    struct LayerBody: Hashable {
        var layer: Int
        var body: BodyReference
    }

    /// Reads the view of `stack` (every layer's record pages once).
    ///
    /// - Throws: ``WebArcError`` for a damaged page.
    init(_ stack: LayerStack) throws {
        self.stack = stack
        try stack.forEachKey { key, group in
            ordinals[key] = keys.count
            keys.append(key)
            firstRecord.append(records.count)
            for entry in group.entries {
                if case .response(let response) = entry.record,
                    firstByLayerBody[LayerBody(layer: group.layer, body: response.body)] == nil
                {
                    firstByLayerBody[LayerBody(layer: group.layer, body: response.body)] = records.count
                }
                records.append(Record(layer: group.layer, record: entry.record))
            }
        }
        firstRecord.append(records.count)
    }

    /// The record ordinals of key `ordinal`.
    func recordRange(ofKey ordinal: Int) -> Range<Int> { firstRecord[ordinal]..<firstRecord[ordinal + 1] }

    /// A changed key's default previous version (§4): its first response with a non-empty body.
    func defaultPrevious(ofKey ordinal: Int) -> Int? {
        recordRange(ofKey: ordinal).first { index in
            if case .response(let response) = records[index].record { return response.bodyLength > 0 }
            return false
        }
    }

    /// The response of record `ordinal`, nil for a redirect.
    func response(_ ordinal: Int) -> ResponseRecord? {
        if case .response(let response) = records[ordinal].record { return response }
        return nil
    }

    /// The verified bytes of record `ordinal`'s body: every chunk checked against its SHA-256
    /// digest, which the base's archive digest binds (spec §11.1), so the body's MD5 and body hash,
    /// computed from the same bytes, are not computed again.
    ///
    /// - Throws: ``WebArcError`` for a damaged chunk or a body whose chunks do not add up to its length.
    func body(_ ordinal: Int) throws -> [UInt8] {
        guard let response = response(ordinal) else { return [] }
        let reader = stack.layers[records[ordinal].layer]
        let entry = try reader.bodyEntry(response.body)
        try entry.checkLength()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(min(entry.length, UInt64(CompactUpdate.maxSection))))
        try reader.forEachChunk(of: response.body) { bytes += $0 }
        guard bytes.count == entry.length else {
            throw WebArcError.bodyDigest(
                body: entry.reference, offset: entry.firstChunkOffset,
                reason: "decodes to \(bytes.count) bytes, its entry says \(entry.length)")
        }
        return bytes
    }

    /// The length of record `ordinal`'s body as its body entry gives it (0 for a redirect).
    ///
    /// - Throws: ``WebArcError`` for a body entry that does not read or is out of bounds.
    func bodyLength(_ ordinal: Int) throws -> Int {
        guard let response = response(ordinal) else { return 0 }
        let entry = try stack.layers[records[ordinal].layer].bodyEntry(response.body)
        try entry.checkLength()
        return Int(entry.length)
    }

    /// Decodes record `ordinal`'s body, verified as ``body(_:)`` does, into `slot`, which holds
    /// ``bodyLength(_:)`` bytes; safe to call for several records at once.
    ///
    /// - Throws: ``WebArcError`` for a damaged chunk or a body whose chunks do not add up to `slot`.
    func body(_ ordinal: Int, into slot: UnsafeMutableRawBufferPointer) throws {
        guard let response = response(ordinal) else { return }
        let reader = stack.layers[records[ordinal].layer]
        let entry = try reader.bodyEntry(response.body)
        var filled = 0
        try reader.forEachChunk(of: response.body) { piece in
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

    /// The compact objects, then the compact headers, of key `ordinal`'s records (§4's dictionary).
    func compactRecords(ofKey ordinal: Int) -> (objects: [UInt8], headers: [UInt8]) {
        var objects: [UInt8] = []
        var headers: [UInt8] = []
        for index in recordRange(ofKey: ordinal) {
            objects += CompactRecords.object(records[index].record)
            headers += CompactRecords.headers(records[index].record)
        }
        return (objects, headers)
    }

    /// The bytes of the `Archive` object the nearest base's metadata page holds.
    ///
    /// - Throws: page errors.
    func nearestArchiveObject() throws -> [UInt8] {
        try stack.layers[0].metadataObjectBytes()
    }
}
