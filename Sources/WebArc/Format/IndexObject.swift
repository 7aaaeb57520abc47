/// A typed field value of a keyed index object.
///
/// Spec: §6.2 field types.
public enum FieldValue: Equatable, Sendable {
    case uint(UInt64)
    case int(Int64)
    case bool(Bool)
    case string(String)
    case object(UInt32)
    case bytes([UInt8])
    case stringList([String])
    /// Milliseconds since 1970-01-01T00:00:00Z.
    case date(Int64)
    case bodyRef(BodyReference)
    case objectList([UInt32])

    /// The type byte stored before the value.
    var typeCode: UInt8 {
        switch self {
        case .uint: FieldType.uint
        case .int: FieldType.int
        case .bool: FieldType.bool
        case .string: FieldType.string
        case .object: FieldType.object
        case .bytes: FieldType.bytes
        case .stringList: FieldType.stringList
        case .date: FieldType.date
        case .bodyRef: FieldType.bodyRef
        case .objectList: FieldType.objectList
        }
    }
}

/// The field type codes of spec §6.2.
enum FieldType {
    static let uint: UInt8 = 1
    static let int: UInt8 = 2
    static let bool: UInt8 = 3
    static let string: UInt8 = 4
    static let object: UInt8 = 5
    static let bytes: UInt8 = 6
    static let stringList: UInt8 = 7
    static let date: UInt8 = 8
    static let bodyRef: UInt8 = 9
    static let objectList: UInt8 = 10

    /// The fixed value length of a type, or nil when it varies.
    static func fixedLength(_ type: UInt8) -> Int? {
        switch type {
        case uint, int, date: 8
        case bool: 1
        case string, object: 4
        case bodyRef: 20
        default: nil
        }
    }
}

/// A keyed object as the writer builds it: a class name and fields in order.
///
/// Spec: §6.2 Object table.
struct IndexObject {
    var className: String
    var fields: [(key: String, value: FieldValue)] = []

    init(className: String) { self.className = className }

    /// Appends a field; `nil` values are skipped so optional fields can be passed straight in.
    mutating func set(_ key: String, _ value: FieldValue?) {
        if let value { fields.append((key, value)) }
    }

    /// Encodes the object, interning every string it names in order (spec Appendix C step 3).
    func serialize(strings: inout StringInterner) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(strings.id(className))
        writer.write(UInt32(fields.count))
        for (key, value) in fields {
            writer.write(strings.id(key))
            writer.write(value.typeCode)
            var body = ByteWriter()
            switch value {
            case .uint(let number): body.write(number)
            case .int(let number), .date(let number): body.write(number)
            case .bool(let flag): body.write(UInt8(flag ? 1 : 0))
            case .string(let text): body.write(strings.id(text))
            case .object(let id): body.write(id)
            case .bytes(let bytes): body.write(bytes: bytes)
            case .stringList(let list): for text in list { body.write(strings.id(text)) }
            case .bodyRef(let reference):
                body.write(bytes: reference.digest.bytes)
                body.write(reference.variant)
            case .objectList(let ids): for id in ids { body.write(id) }
            }
            writer.write(UInt32(body.count))
            writer.write(bytes: body.bytes)
        }
        return writer.bytes
    }
}

/// Gives each distinct string an id in first-use order.
///
/// Spec: §6.1 String table, Appendix C step 3.
struct StringInterner {
    // Keyed by bytes: Swift's String equality treats canonically equivalent strings (precomposed
    // and decomposed "café") as equal, but the spec interns by bytes.
    private var ids: [[UInt8]: UInt32] = [:]
    private(set) var strings: [[UInt8]] = []

    mutating func id(_ string: String) -> UInt32 {
        let bytes = Array(string.utf8)
        if let id = ids[bytes] { return id }
        let id = UInt32(strings.count)
        ids[bytes] = id
        strings.append(bytes)
        return id
    }

    func serialize() -> [UInt8] { OffsetTable.serialize(strings) }
}
