import Foundation

/// A record waiting for ``ArchiveWriter/finish()``: its key and object encoded when it was added.
struct PendingRecord {
    let key: [UInt8]
    let object: [UInt8]
    /// `captureDate` in milliseconds, for the order of equal keys.
    let date: Int64?
    /// Insertion order.
    let order: Int
    /// The body a response names.
    let body: BodyReference?
    let url: String
    /// A response's status, media type and charset, for a search index (nil for other records).
    var response: (status: Int, mediaType: String?, charset: String?)? = nil
}

extension ArchiveWriter {
    /// Adds a response whose body this writer stored.
    ///
    /// - Throws: `invalidRecord` for a status outside 100–599 or a body this writer did not store;
    ///   `badURL` when the request URL has no canonical form.
    public func add(_ response: ResponseRecord) throws {
        try add(response, key: nil)
    }

    /// Adds a response whose lookup key the caller already has (`URLKey.key(method:url:)` of its
    /// request, as UTF-8): the packer computes every file's key for its clash check before it
    /// packs, and need not compute it again here.
    func add(_ response: ResponseRecord, key: [UInt8]?) throws {
        try ensureOpen()
        guard (100...599).contains(response.status) else {
            throw WebArcError.invalidRecord(
                url: response.request.url, reason: "status \(response.status) is not 100–599")
        }
        guard let body = storedBody(response.body), body.length == response.bodyLength else {
            throw WebArcError.invalidRecord(
                url: response.request.url, reason: "body \(response.body) was not added to this writer")
        }
        try append(
            .response(response), body: response.body, key: key, bodyInBases: body.chunks.allSatisfy { $0.layer > 0 })
    }

    /// Adds a redirect.
    ///
    /// - Throws: `invalidRecord` for a status other than 301, 302, 303, 307, 308; `badURL` when the
    ///   request or target URL has no canonical form.
    public func add(_ redirect: RedirectRecord) throws {
        try ensureOpen()
        guard RedirectRecord.allowedStatuses.contains(redirect.status) else {
            throw WebArcError.invalidRecord(
                url: redirect.request.url, reason: "redirect status \(redirect.status) is not 301, 302, 303, 307 or 308"
            )
        }
        _ = try URLKey.canonicalize(redirect.target)
        try append(.redirect(redirect), body: nil)
    }

    /// Adds a tombstone: the archive becomes an update (required feature bit 0) that deletes the
    /// request's URL from its bases (spec §13).
    ///
    /// - Throws: `badURL` when the request URL has no canonical form.
    public func add(_ tombstone: TombstoneRecord) throws {
        try ensureOpen()
        try append(.tombstone(tombstone), body: nil)
        hasTombstones = true
    }

    /// Number of records added so far.
    public var recordCount: Int { records.count }

    private func append(
        _ record: ArchiveRecord, body: BodyReference?, key: [UInt8]? = nil, bodyInBases: Bool = false
    ) throws {
        let key = try key ?? Array(record.request.canonicalKey().utf8)
        totalsCounter.add(record, key: String(decoding: key, as: UTF8.self), bodyInBases: bodyInBases)
        var pending = PendingRecord(
            key: key, object: RecordObjects.record(record).encoded(), date: record.captureDate?.webarcMilliseconds,
            order: records.count, body: body, url: record.request.url)
        if searchIndex != nil, case .response(let response) = record {
            pending.response = (response.status, response.mimeType, response.textEncoding)
        }
        try records.append(pending)
    }

    /// The stored body entry for `reference`, if this writer stored it (nil too when its entry
    /// cannot be read back from the scratch file).
    func storedBody(_ reference: BodyReference) -> BodyEntry? {
        (try? bodies.entry(reference)) ?? nil
    }
}
