import Foundation

/// The records as keyed objects, both ways: fields in the order of the tables of spec §7.3, absent
/// optional fields (and empty header or metadata lists) omitted, as a 2.0 writer stores them.
///
/// Spec: §7.3 Classes, Appendix C step 10.
enum RecordObjects {
    /// The classes a record tree entry may hold.
    static let recordClasses: Set<String> = ["Response", "Redirect", "Tombstone"]
    /// The classes this library knows; an object of another class is skipped wherever it is met.
    static let knownClasses: Set<String> = [
        "Archive", "Request", "Response", "Redirect", "Tombstone", "Base", "Writer", "Target", "Totals",
    ]

    // MARK: Encoding

    static func archive(_ metadata: ArchiveMetadata) -> KeyedObject {
        var object = KeyedObject(className: "Archive")
        object.set("created", metadata.created.map { .date($0.webarcMilliseconds) })
        object.set("creator", metadata.creator.map { .string($0) })
        object.set("startURL", metadata.startURL.map { .string($0) })
        object.set("baseURL", metadata.baseURL.map { .string($0) })
        object.set(
            "metadata", metadata.entries.isEmpty ? nil : .stringList(metadata.entries.flatMap { [$0.key, $0.value] }))
        object.set("bases", metadata.bases.isEmpty ? nil : .objectList(metadata.bases.map(base)))
        object.set("writer", metadata.writer.map { .object(writer($0)) })
        object.set("target", metadata.target.map { .object(target($0)) })
        for (key, root) in [
            ("search", metadata.searchIndex), ("searchIndex", metadata.searchIndexV2),
            ("searchIndex3", metadata.searchIndexV3), ("searchIndex4", metadata.searchIndexV4),
        ] {
            object.set(
                key,
                root.map { reference in
                    var writer = ByteWriter()
                    reference.serialize(into: &writer)
                    return .bytes(writer.bytes)
                })
        }
        object.set("totals", metadata.totals.map { .object(totals($0)) })
        return object
    }

    static func totals(_ totals: ArchiveTotals) -> KeyedObject {
        var object = KeyedObject(className: "Totals")
        object.set("responses", .uint(totals.responses))
        object.set("redirects", .uint(totals.redirects))
        object.set("tombstones", .uint(totals.tombstones))
        object.set("responseBytes", .uint(totals.responseBytes))
        object.set("bodyBytes", .uint(totals.bodyBytes))
        object.set("chunks", .uint(totals.chunks))
        object.set("originCount", .uint(totals.originCount))
        object.set("origins", totals.origins.isEmpty ? nil : .stringList(totals.origins))
        object.set("baseBodyResponses", totals.baseBodyResponses.map { .uint($0) })
        return object
    }

    static func writer(_ recipe: WriterRecipe) -> KeyedObject {
        var object = KeyedObject(className: "Writer")
        object.set("level", .uint(UInt64(recipe.level)))
        object.set("dictionaryInterval", .uint(UInt64(recipe.dictionaryInterval)))
        object.set("order", recipe.order.isTreeOrder ? nil : .bytes(recipe.order.encoded()))
        object.set("zstdLevel", recipe.zstdLevel.map { .uint(UInt64($0)) })
        object.set("anchors", recipe.anchors.code.map { .uint($0) })
        object.set("dictionaryPlacement", recipe.placement.code.map { .uint($0) })
        object.set("search", recipe.search.map { .uint($0) })
        object.set("groups", recipe.groups.map { .uint(UInt64($0)) })
        return object
    }

    static func target(_ target: UpdateTarget) -> KeyedObject {
        var object = KeyedObject(className: "Target")
        object.set("digest", .bytes(target.digest))
        object.set("archiveLength", .uint(target.archiveLength))
        object.set("archive", .object(archive(target.archive)))
        object.set("appendix", target.appendix.isEmpty ? nil : .bytes(target.appendix))
        object.set("bodyData", target.bodyData.map { .bytes($0.bytes) })
        return object
    }

    static func base(_ base: BaseArchive) -> KeyedObject {
        var object = KeyedObject(className: "Base")
        object.set("digest", .bytes(base.digest))
        object.set("archiveLength", .uint(base.archiveLength))
        object.set("name", base.name.map { .string($0) })
        return object
    }

    static func request(_ request: RequestRecord) -> KeyedObject {
        var object = KeyedObject(className: "Request")
        object.set("method", .string(request.method))
        object.set("url", .string(request.url))
        object.set("headers", request.headers.isEmpty ? nil : .stringList(request.headers.flattened))
        return object
    }

    static func record(_ record: ArchiveRecord) -> KeyedObject {
        switch record {
        case .response(let response):
            var object = KeyedObject(className: "Response")
            object.set("request", .object(request(response.request)))
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
            var object = KeyedObject(className: "Redirect")
            object.set("request", .object(request(redirect.request)))
            object.set("status", .uint(UInt64(redirect.status)))
            object.set("target", .string(redirect.target))
            object.set("headers", redirect.headers.isEmpty ? nil : .stringList(redirect.headers.flattened))
            object.set("captureDate", redirect.captureDate.map { .date($0.webarcMilliseconds) })
            return object
        case .tombstone(let tombstone):
            var object = KeyedObject(className: "Tombstone")
            object.set("request", .object(request(tombstone.request)))
            object.set("captureDate", tombstone.captureDate.map { .date($0.webarcMilliseconds) })
            return object
        }
    }

    // MARK: Decoding

    /// The metadata page's object.
    ///
    /// - Throws: `corruptIndex` when it is not an `Archive` or a known field is malformed.
    static func metadata(_ object: DecodedObject) throws -> ArchiveMetadata {
        guard object.className == "Archive" else {
            throw object.corrupt("the metadata page holds a \(object.className), not an Archive")
        }
        let pairs = try pairs(object, "metadata")
        func searchRoot(_ key: String) throws -> PageReference? {
            guard let bytes = try object.byteString(key) else { return nil }
            guard bytes.count == PageReference.size else {
                throw object.corrupt("\(key) holds \(bytes.count) bytes, not a 56-byte page reference")
            }
            var reader = ByteReader(bytes, region: .object(page: object.page))
            return try PageReference(parsing: &reader)
        }
        let searchIndex = try searchRoot("search")
        let searchIndexV2 = try searchRoot("searchIndex")
        let searchIndexV3 = try searchRoot("searchIndex3")
        let searchIndexV4 = try searchRoot("searchIndex4")
        var metadata = ArchiveMetadata(
            created: try object.date("created").map(Date.init(webarcMilliseconds:)),
            creator: try object.string("creator"),
            startURL: try object.string("startURL"), baseURL: try object.string("baseURL"),
            entries: pairs.map { ArchiveMetadata.Entry($0.0, $0.1) },
            bases: try (object.objectList("bases", className: "Base") ?? []).map(base),
            writer: try object.object("writer", className: "Writer").map(writer),
            target: try object.object("target", className: "Target").map(target))
        metadata.searchIndex = searchIndex
        metadata.searchIndexV2 = searchIndexV2
        metadata.searchIndexV3 = searchIndexV3
        metadata.searchIndexV4 = searchIndexV4
        metadata.totals = try object.object("totals", className: "Totals").map(totals)
        return metadata
    }

    static func totals(_ object: DecodedObject) throws -> ArchiveTotals {
        return ArchiveTotals(
            responses: try object.uint("responses", required: true)!,
            redirects: try object.uint("redirects", required: true)!,
            tombstones: try object.uint("tombstones", required: true)!,
            responseBytes: try object.uint("responseBytes", required: true)!,
            bodyBytes: try object.uint("bodyBytes", required: true)!,
            chunks: try object.uint("chunks", required: true)!,
            originCount: try object.uint("originCount", required: true)!,
            origins: try object.stringList("origins") ?? [], baseBodyResponses: try object.uint("baseBodyResponses"))
    }

    static func writer(_ object: DecodedObject) throws -> WriterRecipe {
        let level = try object.uint("level", required: true)!
        let interval = try object.uint("dictionaryInterval", required: true)!
        guard level <= 12, interval <= UInt64(Int32.max) else {
            throw object.corrupt("writer level \(level) or dictionary interval \(interval) out of range")
        }
        let zstdLevel = try object.uint("zstdLevel")
        if let zstdLevel, !(ZstdDelta.levels ~= Int32(clamping: zstdLevel)) {
            throw object.corrupt("writer zstdLevel \(zstdLevel) out of range (1 to 22)")
        }
        let order: InsertionOrder
        do {
            order = try object.byteString("order").map(InsertionOrder.init(encoded:)) ?? InsertionOrder()
        } catch let problem as InsertionOrder.Problem {
            throw object.corrupt(problem.description)
        }
        let groups = try object.uint("groups")
        if let groups {
            guard ArchiveWriter.groupLimits ~= Int(clamping: groups), interval == 0 else {
                throw object.corrupt(
                    "writer groups \(groups) out of range (65536 to 2097152) or with dictionary interval \(interval)")
            }
        }
        let anchors = WriterRecipe.AnchorRule(code: try object.uint("anchors") ?? 0)
        let placement = DictionaryPlacement(code: try object.uint("dictionaryPlacement") ?? 0)
        return WriterRecipe(
            level: Int(level), dictionaryInterval: Int(interval), zstdLevel: zstdLevel.map { Int($0) }, order: order,
            anchors: anchors,
            placement: placement, search: try object.uint("search"), groups: groups.map { Int($0) })
    }

    static func target(_ object: DecodedObject) throws -> UpdateTarget {
        let digest = try object.byteString("digest", required: true)!
        guard digest.count == 32 else { throw object.corrupt("target digest holds \(digest.count) bytes, not 32") }
        let archive = try metadata(try object.object("archive", className: "Archive", required: true)!)
        let bodyData = try object.byteString("bodyData").map { bytes in
            guard let hash = SHA256Hash(bytes: bytes) else {
                throw object.corrupt("target bodyData holds \(bytes.count) bytes, not 32")
            }
            return hash
        }
        return UpdateTarget(
            digest: digest, archiveLength: try object.uint("archiveLength", required: true)!, archive: archive,
            appendix: try object.byteString("appendix") ?? [], bodyData: bodyData)
    }

    static func base(_ object: DecodedObject) throws -> BaseArchive {
        let digest = try object.byteString("digest", required: true)!
        guard digest.count == 32 else { throw object.corrupt("base digest holds \(digest.count) bytes, not 32") }
        return BaseArchive(
            digest: digest, archiveLength: try object.uint("archiveLength", required: true)!,
            name: try object.string("name"))
    }

    static func request(_ object: DecodedObject, keepingHeaders: Bool = true) throws -> RequestRecord {
        RequestRecord(
            method: try object.string("method", required: true)!, url: try object.string("url", required: true)!,
            headers: try headers(object, keeping: keepingHeaders))
    }

    /// A record tree entry's object, or nil for a class this library does not know (skipped).
    ///
    /// - Parameters:
    ///   - features: the trailer's required features; a `Tombstone` needs bit 0.
    ///   - keepingHeaders: as for ``parse(_:keepingHeaders:)``.
    /// - Throws: `corruptIndex` for a known class that is not a record, a tombstone outside an
    ///   update archive, a response status outside 100–599, or a malformed known field.
    static func record(
        _ object: DecodedObject, features: Trailer.Features, keepingHeaders: Bool = true
    ) throws -> ArchiveRecord? {
        switch try parse(object, keepingHeaders: keepingHeaders) {
        case .record(let record):
            if record.isTombstone && !features.contains(.layer) {
                throw object.corrupt("a tombstone in an archive without required feature bit 0")
            }
            return record
        case .other(let name):
            throw object.corrupt("a \(name) is not a record")
        case .unknown:
            return nil
        }
    }

    /// What an object of the record tree holds once its known fields are checked.
    enum Parsed {
        case record(ArchiveRecord)
        /// A known class that is not a record class (`Archive`, `Request`, `Base`, `Writer`, `Target`).
        case other(String)
        /// A class this library does not know: its fields are not looked at.
        case unknown
    }

    /// Checks an object's known fields for its class (spec §7.3), whatever place it is found in.
    ///
    /// - Parameter keepingHeaders: false checks a record's header lists as true does, but leaves
    ///   them out of the record (for `verify`, which needs no header's text).
    /// - Throws: `corruptIndex` for a malformed known field, a missing required one, a response
    ///   status outside 100–599.
    static func parse(_ object: DecodedObject, keepingHeaders: Bool = true) throws -> Parsed {
        switch object.className {
        case "Archive":
            _ = try metadata(object)
            return .other("Archive")
        case "Request":
            _ = try request(object)
            return .other("Request")
        case "Base":
            _ = try base(object)
            return .other("Base")
        case "Writer":
            _ = try writer(object)
            return .other("Writer")
        case "Target":
            _ = try target(object)
            return .other("Target")
        case "Totals":
            _ = try totals(object)
            return .other("Totals")
        case "Response", "Redirect", "Tombstone":
            return .record(try decodeRecord(object, keepingHeaders: keepingHeaders))
        default:
            return .unknown
        }
    }

    private static func decodeRecord(_ object: DecodedObject, keepingHeaders keep: Bool) throws -> ArchiveRecord {
        switch object.className {
        case "Response":
            let status = try object.uint("status", required: true)!
            guard (100...599).contains(status) else {
                throw object.corrupt(
                    "status \(status) is not 100–599", at: try object.field("status", type: FieldType.uint)?.position)
            }
            return .response(
                ResponseRecord(
                    request: try request(
                        object.object("request", className: "Request", required: true)!, keepingHeaders: keep),
                    status: Int(status),
                    reason: try object.string("reason"), headers: try headers(object, keeping: keep),
                    mimeType: try object.string("mimeType"),
                    textEncoding: try object.string("textEncoding"),
                    body: try object.bodyReference("body", required: true)!,
                    bodyLength: try object.uint("bodyLength", required: true)!,
                    captureDate: try object.date("captureDate").map(Date.init(webarcMilliseconds:))))
        case "Redirect":
            return .redirect(
                RedirectRecord(
                    request: try request(
                        object.object("request", className: "Request", required: true)!, keepingHeaders: keep),
                    status: Int(clamping: try object.uint("status", required: true)!),
                    target: try object.string("target", required: true)!,
                    headers: try headers(object, keeping: keep),
                    captureDate: try object.date("captureDate").map(Date.init(webarcMilliseconds:))))
        default:
            return .tombstone(
                TombstoneRecord(
                    request: try request(
                        object.object("request", className: "Request", required: true)!, keepingHeaders: keep),
                    captureDate: try object.date("captureDate").map(Date.init(webarcMilliseconds:))))
        }
    }

    /// A header list: names and values alternately, an even count (spec §7.2); checked alike but
    /// not made when `keeping` is false (then empty).
    static func headers(_ object: DecodedObject, keeping: Bool = true) throws -> [HTTPHeader] {
        guard keeping else {
            if let count = try object.stringListCount("headers"), count % 2 != 0 {
                throw notPairs(object, "headers", count: count)
            }
            return []
        }
        return try pairs(object, "headers").map { HTTPHeader($0.0, $0.1) }
    }

    private static func notPairs(_ object: DecodedObject, _ key: String, count: Int) -> WebArcError {
        object.corrupt(
            "list \"\(key)\" holds \(count) strings, not pairs",
            at: try? object.field(key, type: FieldType.stringList)?.position)
    }

    private static func pairs(_ object: DecodedObject, _ key: String) throws -> [(String, String)] {
        guard let list = try object.stringList(key) else { return [] }
        guard list.count % 2 == 0 else { throw notPairs(object, key, count: list.count) }
        return stride(from: 0, to: list.count, by: 2).map { (list[$0], list[$0 + 1]) }
    }
}
