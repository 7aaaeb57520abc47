import Crypto
import Foundation

/// A record waiting for ``ArchiveWriter/finish()``, with its key computed when it was added.
struct PendingRecord {
    let record: ArchiveRecord
    let key: String
}

extension ArchiveWriter {
    /// Adds a response whose body this writer stored.
    ///
    /// - Throws: `invalidRecord` for a status outside 100–599 or a body this writer did not store;
    ///   `badURL` when the request URL is not absolute.
    public func add(_ response: ResponseRecord) throws {
        try ensureOpen()
        guard (100...599).contains(response.status) else {
            throw WebArcError.invalidRecord(url: response.request.url, reason: "status \(response.status) is not 100–599")
        }
        guard let body = bodies[response.body.digest]?.first(where: { $0.reference == response.body }),
            body.length == response.bodyLength
        else {
            throw WebArcError.invalidRecord(url: response.request.url, reason: "body \(response.body) was not added to this writer")
        }
        records.append(PendingRecord(record: .response(response), key: try response.request.canonicalKey()))
    }

    /// Adds a redirect.
    ///
    /// - Throws: `invalidRecord` for a status other than 301, 302, 303, 307, 308; `badURL` when the
    ///   request or target URL is not absolute.
    public func add(_ redirect: RedirectRecord) throws {
        try ensureOpen()
        guard RedirectRecord.allowedStatuses.contains(redirect.status) else {
            throw WebArcError.invalidRecord(url: redirect.request.url, reason: "redirect status \(redirect.status) is not 301, 302, 303, 307 or 308")
        }
        _ = try URLKey.canonicalize(redirect.target)
        records.append(PendingRecord(record: .redirect(redirect), key: try redirect.request.canonicalKey()))
    }

    /// Number of records added so far.
    public var recordCount: Int { records.count }

    /// Writes the index, the section table and the header, syncs, and renames the archive into place.
    ///
    /// On any error the temporary file is removed and the target path is untouched.
    /// - Throws: `io`, or `outputExists` when the path appeared meanwhile and overwriting is off.
    public func finish() throws {
        try ensureOpen()
        try failing {
            let bodyDataEnd = output.length
            let indexOffset = Self.aligned(bodyDataEnd)
            try output.append(repeatElement(UInt8(0), count: Int(indexOffset - bodyDataEnd)))

            var strings = StringInterner()
            var objects: [[UInt8]] = [Self.archiveObject(metadata).serialize(strings: &strings)]
            var lookup: [(key: UInt32, record: UInt32, keyBytes: [UInt8], date: Int64?, order: Int)] = []
            var recordObjectIDs: [UInt32] = []
            for pending in records {
                let requestID = UInt32(objects.count)
                objects.append(Self.requestObject(pending.record.request).serialize(strings: &strings))
                recordObjectIDs.append(UInt32(objects.count))
                objects.append(Self.recordObject(pending.record, requestID: requestID).serialize(strings: &strings))
            }
            for (order, pending) in records.enumerated() {
                lookup.append((
                    strings.id(pending.key), recordObjectIDs[order], Array(pending.key.utf8),
                    pending.record.captureDate?.webarcMilliseconds, order
                ))
            }
            lookup.sort { lhs, rhs in
                if lhs.keyBytes != rhs.keyBytes { return lhs.keyBytes.lexicographicallyPrecedes(rhs.keyBytes) }
                if lhs.date != rhs.date { return (lhs.date ?? Int64.min) > (rhs.date ?? Int64.min) }
                return lhs.order > rhs.order
            }

            let sortedBodies = bodies.values.flatMap { $0 }.sorted { $0.reference < $1.reference }
            let sections: [(String, [UInt8])] = [
                (SectionType.bodyTable, FixedTableWriter.serialize(sortedBodies, entrySize: BodyEntry.size) { $0.serialize(into: &$1) }),
                (SectionType.chunkTable, FixedTableWriter.serialize(chunks, entrySize: ChunkEntry.size) { $0.serialize(into: &$1) }),
                (SectionType.strings, strings.serialize()),
                (SectionType.objects, OffsetTable.serialize(objects)),
                (SectionType.lookup, FixedTableWriter.serialize(lookup, entrySize: 8) { entry, writer in
                    writer.write(entry.key)
                    writer.write(entry.record)
                }),
            ]
            var index = ByteWriter()
            var table = [SectionEntry(type: SectionType.bodyData, offset: UInt64(FileHeader.size), length: bodyDataEnd - UInt64(FileHeader.size))]
            for (type, bytes) in sections {
                index.pad(toMultipleOf: 8)
                table.append(SectionEntry(type: type, offset: indexOffset + UInt64(index.count), length: UInt64(bytes.count)))
                index.write(bytes: bytes)
            }
            index.pad(toMultipleOf: 8)
            var header = FileHeader()
            header.sectionTableOffset = indexOffset + UInt64(index.count)
            for entry in table { entry.serialize(into: &index) }
            header.indexOffset = indexOffset
            header.archiveLength = indexOffset + UInt64(index.count)
            header.sectionCount = UInt32(table.count)
            header.indexDigest = Array(SHA256.hash(data: index.bytes))
            try output.append(index.bytes)
            try output.flush()
            try output.write(header.serialize(), at: 0)
            try output.commit(overwrite: options.overwrite)
            closed = true
        }
    }

    static func aligned(_ offset: UInt64) -> UInt64 { (offset + 7) / 8 * 8 }

    static func archiveObject(_ metadata: ArchiveMetadata) -> IndexObject {
        var object = IndexObject(className: "Archive")
        object.set("created", metadata.created.map { .date($0.webarcMilliseconds) })
        object.set("creator", metadata.creator.map { .string($0) })
        object.set("startURL", metadata.startURL.map { .string($0) })
        object.set("baseURL", metadata.baseURL.map { .string($0) })
        object.set("metadata", metadata.entries.isEmpty ? nil : .stringList(metadata.entries.flatMap { [$0.key, $0.value] }))
        return object
    }

    static func requestObject(_ request: RequestRecord) -> IndexObject {
        var object = IndexObject(className: "Request")
        object.set("method", .string(request.method))
        object.set("url", .string(request.url))
        object.set("headers", request.headers.isEmpty ? nil : .stringList(request.headers.flattened))
        return object
    }

    static func recordObject(_ record: ArchiveRecord, requestID: UInt32) -> IndexObject {
        switch record {
        case .response(let response):
            var object = IndexObject(className: "Response")
            object.set("request", .object(requestID))
            object.set("status", .uint(UInt64(response.status)))
            object.set("reason", response.reason.map { .string($0) })
            object.set("headers", response.headers.isEmpty ? nil : .stringList(response.headers.flattened))
            object.set("mimeType", response.mimeType.map { .string($0) })
            object.set("textEncoding", response.textEncoding.map { .string($0) })
            object.set("body", .bodyRef(response.body))
            object.set("bodyLength", .uint(response.bodyLength))
            object.set("captureDate", response.captureDate.map { .date($0.webarcMilliseconds) })
            return object
        case .redirect(let redirect):
            var object = IndexObject(className: "Redirect")
            object.set("request", .object(requestID))
            object.set("status", .uint(UInt64(redirect.status)))
            object.set("target", .string(redirect.target))
            object.set("headers", redirect.headers.isEmpty ? nil : .stringList(redirect.headers.flattened))
            object.set("captureDate", redirect.captureDate.map { .date($0.webarcMilliseconds) })
            return object
        }
    }
}
