import Foundation

/// One field of a decoded object, value still encoded.
struct RawField {
    let type: UInt8
    let value: [UInt8]
    /// Absolute offset of the field's key.
    let offset: UInt64
}

/// An object of the index with its fields by key.
///
/// Spec: §6.2.
struct DecodedObject {
    let id: UInt32
    let className: String
    let offset: UInt64
    let fields: [String: RawField]
}

extension ArchiveReader {
    /// Number of objects in the index.
    var objectCount: Int { objects.count }

    /// Decodes object `id`: its class and fields, checking lengths, types and duplicate keys.
    ///
    /// - Throws: `corruptIndex`, `duplicateKey`, `truncated`.
    func object(_ id: UInt32) throws -> DecodedObject {
        var reader = try objects.item(Int(id), from: source)
        let offset = reader.offset
        let className = try string(try reader.readUInt32())
        let fieldCount = try reader.readUInt32()
        guard UInt64(fieldCount) * 9 <= UInt64(reader.remaining) else {
            throw WebArcError.corruptIndex(section: "OBJS", offset: offset + 4, reason: "object \(id) claims \(fieldCount) fields")
        }
        var fields: [String: RawField] = [:]
        for _ in 0..<fieldCount {
            let fieldOffset = reader.offset
            let key = try string(try reader.readUInt32())
            let type = try reader.readUInt8()
            let length = try reader.readUInt32()
            guard Int(length) <= reader.remaining else {
                throw WebArcError.corruptIndex(
                    section: "OBJS", offset: fieldOffset, reason: "field \"\(key)\" of object \(id) runs past the object")
            }
            let value = try reader.readBytes(Int(length))
            if let fixed = FieldType.fixedLength(type), fixed != Int(length) {
                throw WebArcError.corruptIndex(
                    section: "OBJS", offset: fieldOffset,
                    reason: "field \"\(key)\" of object \(id) has type \(type) but \(length) bytes (expected \(fixed))")
            }
            if (type == FieldType.stringList || type == FieldType.objectList) && length % 4 != 0 {
                throw WebArcError.corruptIndex(
                    section: "OBJS", offset: fieldOffset, reason: "list field \"\(key)\" of object \(id) has \(length) bytes")
            }
            guard fields[key] == nil else { throw WebArcError.duplicateKey(object: id, key: key, offset: fieldOffset) }
            fields[key] = RawField(type: type, value: value, offset: fieldOffset)
        }
        guard reader.remaining == 0 else {
            throw WebArcError.corruptIndex(
                section: "OBJS", offset: reader.offset, reason: "object \(id) has \(reader.remaining) bytes after its fields")
        }
        return DecodedObject(id: id, className: className, offset: offset, fields: fields)
    }

    // MARK: Typed field access

    private func field(_ object: DecodedObject, _ key: String, type: UInt8, required: Bool) throws -> RawField? {
        guard let field = object.fields[key] else {
            if required {
                throw WebArcError.corruptIndex(
                    section: "OBJS", offset: object.offset, reason: "\(object.className) object \(object.id) lacks \"\(key)\"")
            }
            return nil
        }
        guard field.type == type else {
            throw WebArcError.corruptIndex(
                section: "OBJS", offset: field.offset,
                reason: "field \"\(key)\" of object \(object.id) has type \(field.type), expected \(type)")
        }
        return field
    }

    private static func integer(_ bytes: [UInt8]) -> UInt64 {
        bytes.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    func uint(_ object: DecodedObject, _ key: String, required: Bool = false) throws -> UInt64? {
        try field(object, key, type: FieldType.uint, required: required).map { Self.integer($0.value) }
    }

    func date(_ object: DecodedObject, _ key: String) throws -> Date? {
        try field(object, key, type: FieldType.date, required: false).map {
            Date(webarcMilliseconds: Int64(bitPattern: Self.integer($0.value)))
        }
    }

    func string(_ object: DecodedObject, _ key: String, required: Bool = false) throws -> String? {
        try field(object, key, type: FieldType.string, required: required).map { try string(UInt32(Self.integer($0.value))) }
    }

    func objectID(_ object: DecodedObject, _ key: String, required: Bool = false) throws -> UInt32? {
        try field(object, key, type: FieldType.object, required: required).map { UInt32(Self.integer($0.value)) }
    }

    func stringList(_ object: DecodedObject, _ key: String) throws -> [String] {
        guard let field = try field(object, key, type: FieldType.stringList, required: false) else { return [] }
        return try stride(from: 0, to: field.value.count, by: 4).map {
            try string(UInt32(Self.integer(Array(field.value[$0..<$0 + 4]))))
        }
    }

    func bodyReference(_ object: DecodedObject, _ key: String) throws -> BodyReference {
        let field = try field(object, key, type: FieldType.bodyRef, required: true)!
        return BodyReference(
            digest: BodyDigest(sixteen: Array(field.value[0..<16])), variant: UInt32(Self.integer(Array(field.value[16..<20]))))
    }

    // MARK: Records

    func decodeMetadata() throws -> ArchiveMetadata {
        let root = try object(0)
        guard root.className == "Archive" else {
            throw WebArcError.corruptIndex(section: "OBJS", offset: root.offset, reason: "object 0 is \(root.className), not Archive")
        }
        let pairs = try stringList(root, "metadata")
        return ArchiveMetadata(
            created: try date(root, "created"), creator: try string(root, "creator"),
            startURL: try string(root, "startURL"), baseURL: try string(root, "baseURL"),
            entries: stride(from: 0, to: pairs.count - 1, by: 2).map { ArchiveMetadata.Entry(pairs[$0], pairs[$0 + 1]) })
    }

    func request(_ id: UInt32) throws -> RequestRecord {
        let object = try object(id)
        guard object.className == "Request" else {
            throw WebArcError.corruptIndex(section: "OBJS", offset: object.offset, reason: "object \(id) is \(object.className), not Request")
        }
        return RequestRecord(
            method: try string(object, "method", required: true)!, url: try string(object, "url", required: true)!,
            headers: [HTTPHeader](flattened: try stringList(object, "headers")))
    }

    /// Decodes a response or redirect object, or returns nil for a class this reader does not know.
    func record(_ id: UInt32) throws -> ArchiveRecord? {
        let object = try object(id)
        switch object.className {
        case "Response":
            return .response(ResponseRecord(
                request: try request(try objectID(object, "request", required: true)!),
                status: Int(try uint(object, "status", required: true)!), reason: try string(object, "reason"),
                headers: [HTTPHeader](flattened: try stringList(object, "headers")), mimeType: try string(object, "mimeType"),
                textEncoding: try string(object, "textEncoding"), body: try bodyReference(object, "body"),
                bodyLength: try uint(object, "bodyLength", required: true)!, captureDate: try date(object, "captureDate")))
        case "Redirect":
            return .redirect(RedirectRecord(
                request: try request(try objectID(object, "request", required: true)!),
                status: Int(try uint(object, "status", required: true)!), target: try string(object, "target", required: true)!,
                headers: [HTTPHeader](flattened: try stringList(object, "headers")), captureDate: try date(object, "captureDate")))
        default:
            return nil
        }
    }
}
