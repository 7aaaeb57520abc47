/// A typed field value of a keyed object.
///
/// Spec: §7.1 field types.
enum FieldValue: Equatable, Sendable {
    case uint(UInt64)
    case int(Int64)
    case bool(Bool)
    case string(String)
    case object(KeyedObject)
    case bytes([UInt8])
    case stringList([String])
    /// Milliseconds since 1970-01-01T00:00:00Z.
    case date(Int64)
    case bodyRef(BodyReference)
    case objectList([KeyedObject])

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

    /// The value's bytes.
    func encoded() -> [UInt8] {
        var writer = ByteWriter()
        encode(into: &writer)
        return writer.bytes
    }

    /// Appends the value's bytes to `writer`, nested objects in place.
    func encode(into writer: inout ByteWriter) {
        switch self {
        case .uint(let number): writer.write(number)
        case .int(let number), .date(let number): writer.write(number)
        case .bool(let flag): writer.write(UInt8(flag ? 1 : 0))
        case .string(let text): writer.write(bytes: text.utf8)
        case .object(let object): object.encode(into: &writer)
        case .bytes(let bytes): writer.write(bytes: bytes)
        case .stringList(let list):
            writer.write(UInt32(list.count))
            for text in list { writer.writeLengthPrefixed(text.utf8) }
        case .bodyRef(let reference):
            writer.write(bytes: reference.digest.bytes)
            writer.write(reference.variant)
        case .objectList(let objects):
            writer.write(UInt32(objects.count))
            for object in objects { writer.writeLengthPrefixed { object.encode(into: &$0) } }
        }
    }
}

/// The field type codes of spec §7.1.
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
        case bodyRef: 20
        default: nil
        }
    }
}

/// A keyed object as a writer builds it: a class name and fields in order.
///
/// Spec: §7.1 Encoding.
struct KeyedObject: Equatable, Sendable {
    var className: String
    var fields: [Field] = []

    /// One named field.
    struct Field: Equatable, Sendable {
        var key: String
        var value: FieldValue
    }

    init(className: String) { self.className = className }

    /// Appends a field; `nil` values are skipped so optional fields can be passed straight in.
    mutating func set(_ key: String, _ value: FieldValue?) {
        if let value { fields.append(Field(key: key, value: value)) }
    }

    /// The encoded object: class, field count, then each field's key, type, length and value.
    func encoded() -> [UInt8] {
        var writer = ByteWriter()
        encode(into: &writer)
        return writer.bytes
    }

    /// Appends the encoded object to `writer`, each value written in place behind its length.
    func encode(into writer: inout ByteWriter) {
        writer.writeLengthPrefixed(className.utf8)
        writer.write(UInt32(fields.count))
        for field in fields {
            writer.writeLengthPrefixed(field.key.utf8)
            writer.write(field.value.typeCode)
            writer.writeLengthPrefixed { field.value.encode(into: &$0) }
        }
    }
}
