/// A keyed object read from a decoded page: its class and fields, values still encoded.
///
/// Decoding checks the layout (fields fill the object exactly, no key twice); the typed accessors
/// check a known key's type, length and value when it is asked for. Unknown keys are never looked
/// at beyond their length. Errors name the page and the position inside the decoded page.
/// Spec: §7.1 Encoding.
struct DecodedObject {
    /// One field, located in the page.
    struct Field {
        let key: ArraySlice<UInt8>
        let type: UInt8
        let value: Range<Int>
        /// Position of the field (its key length) in the decoded page.
        let position: Int
    }

    let className: String
    /// Offset of the page holding the object.
    let page: UInt64
    /// Position of the object in the decoded page.
    let position: Int
    /// How deep the object is nested (0 for a record or the metadata object; at most 3).
    let depth: Int
    let fields: [Field]
    private let bytes: [UInt8]

    /// Decodes the object in `bytes[range]`, a decoded page stored at `page`.
    ///
    /// - Throws: `corruptIndex` when the layout breaks §7.1 or the nesting is deeper than 4;
    ///   `duplicateKey` naming the second of two equal keys.
    init(_ bytes: [UInt8], range: Range<Int>, page: UInt64, depth: Int = 0) throws {
        self.bytes = bytes
        self.page = page
        position = range.lowerBound
        self.depth = depth
        guard depth < FormatBounds.maxObjectNesting else {
            throw WebArcError.corruptIndex(
                page: page, position: range.lowerBound,
                reason: "objects nest more than \(FormatBounds.maxObjectNesting) deep")
        }
        var reader = ByteReader(bytes, region: .object(page: page), range: range)
        let classRange = try reader.readLengthPrefixed(what: "class name")
        guard let className = UTF8Text.validated(bytes[classRange]) else {
            throw WebArcError.corruptIndex(
                page: page, position: classRange.lowerBound, reason: "class name is not valid UTF-8")
        }
        self.className = className
        let count = try reader.readUInt32()
        // Each field takes at least 9 bytes: checked before the loop, so a count cannot spin.
        try reader.require(UInt64(count) * 9, what: "\(count) fields")
        var fields: [Field] = []
        // Duplicate keys: a few fields (every record object) are compared in a loop, which costs
        // less than hashing them and, in a fresh process, than the Swift runtime's first lookup of
        // the set type's conformances (a scan of the binary's records that a one-shot `cat` pays).
        let fewFields = 16
        var keys = Set<ArraySlice<UInt8>>()
        for _ in 0..<count {
            let fieldPosition = reader.position
            let key = bytes[try reader.readLengthPrefixed(what: "field key")]
            guard UTF8Text.validated(key) != nil else {
                throw WebArcError.corruptIndex(
                    page: page, position: fieldPosition, reason: "a key of a \(className) is not valid UTF-8")
            }
            let type = try reader.readUInt8()
            let value = try reader.readLengthPrefixed(what: "field value")
            let isNew = count <= fewFields ? !fields.contains { $0.key == key } : keys.insert(key).inserted
            guard isNew else {
                throw WebArcError.duplicateKey(
                    key: String(decoding: key, as: UTF8.self), page: page, position: fieldPosition)
            }
            fields.append(Field(key: key, type: type, value: value, position: fieldPosition))
        }
        guard reader.isAtEnd else {
            throw WebArcError.corruptIndex(
                page: page, position: reader.position,
                reason: "\(reader.remaining) bytes after the fields of a \(className)")
        }
        self.fields = fields
    }

    // MARK: Typed access

    func corrupt(_ reason: String, at position: Int? = nil) -> WebArcError {
        .corruptIndex(page: page, position: position ?? self.position, reason: "\(className): \(reason)")
    }

    /// The field `key` checked to have `type`, nil when absent (or `corruptIndex` when required).
    func field(_ key: String, type: UInt8, required: Bool = false) throws -> Field? {
        // Compared byte by byte with the key's UTF-8 view: no array is made for each lookup; the
        // lengths first, which rule out most fields at once.
        let length = key.utf8.count
        guard let field = fields.first(where: { $0.key.count == length && $0.key.elementsEqual(key.utf8) }) else {
            if required { throw corrupt("required field \"\(key)\" is missing") }
            return nil
        }
        guard field.type == type else {
            throw corrupt("field \"\(key)\" has type \(field.type), expected \(type)", at: field.position)
        }
        if let fixed = FieldType.fixedLength(type), fixed != field.value.count {
            throw corrupt("field \"\(key)\" holds \(field.value.count) bytes, expected \(fixed)", at: field.position)
        }
        return field
    }

    private func integer(_ field: Field) -> UInt64 {
        bytes[field.value].reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    func uint(_ key: String, required: Bool = false) throws -> UInt64? {
        try field(key, type: FieldType.uint, required: required).map(integer)
    }

    func date(_ key: String) throws -> Int64? {
        try field(key, type: FieldType.date).map { Int64(bitPattern: integer($0)) }
    }

    func bool(_ key: String) throws -> Bool? {
        guard let field = try field(key, type: FieldType.bool) else { return nil }
        let value = bytes[field.value.lowerBound]
        guard value <= 1 else { throw corrupt("field \"\(key)\" is bool \(value), not 0 or 1", at: field.position) }
        return value == 1
    }

    func string(_ key: String, required: Bool = false) throws -> String? {
        guard let field = try field(key, type: FieldType.string, required: required) else { return nil }
        guard let text = UTF8Text.validated(bytes[field.value]) else {
            throw corrupt("field \"\(key)\" is not valid UTF-8", at: field.position)
        }
        return text
    }

    func byteString(_ key: String, required: Bool = false) throws -> [UInt8]? {
        try field(key, type: FieldType.bytes, required: required).map { Array(bytes[$0.value]) }
    }

    func bodyReference(_ key: String, required: Bool = false) throws -> BodyReference? {
        guard let field = try field(key, type: FieldType.bodyRef, required: required) else { return nil }
        let start = field.value.lowerBound
        let variant = bytes[start + 16..<start + 20].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return BodyReference(digest: BodyDigest(sixteen: Array(bytes[start..<start + 16])), variant: variant)
    }

    func stringList(_ key: String) throws -> [String]? {
        guard let field = try field(key, type: FieldType.stringList) else { return nil }
        return try items(of: field, key: key).map { range in
            guard let text = UTF8Text.validated(bytes[range]) else {
                throw corrupt("an item of \"\(key)\" is not valid UTF-8", at: field.position)
            }
            return text
        }
    }

    /// The number of items of string list `key`, each checked as ``stringList(_:)`` checks it,
    /// without making their text; nil when absent.
    func stringListCount(_ key: String) throws -> Int? {
        guard let field = try field(key, type: FieldType.stringList) else { return nil }
        // The layout of every item first, as ``items(of:key:)`` checks it, then their text: the
        // errors of ``stringList(_:)`` in its order, with no list of ranges made.
        var count = 0
        try forEachItem(of: field, key: key) { _ in count += 1 }
        try forEachItem(of: field, key: key) { range in
            guard UTF8Text.isValid(bytes[range]) else {
                throw corrupt("an item of \"\(key)\" is not valid UTF-8", at: field.position)
            }
        }
        return count
    }

    /// The nested object of field `key`, checked to be of class `className`.
    func object(_ key: String, className: String, required: Bool = false) throws -> DecodedObject? {
        guard let field = try field(key, type: FieldType.object, required: required) else { return nil }
        return try nested(field.value, className: className, key: key)
    }

    func objectList(_ key: String, className: String) throws -> [DecodedObject]? {
        guard let field = try field(key, type: FieldType.objectList) else { return nil }
        return try items(of: field, key: key).map { try nested($0, className: className, key: key) }
    }

    private func nested(_ range: Range<Int>, className: String, key: String) throws -> DecodedObject {
        let object = try DecodedObject(bytes, range: range, page: page, depth: depth + 1)
        guard object.className == className else {
            throw corrupt("field \"\(key)\" holds a \(object.className), expected a \(className)", at: range.lowerBound)
        }
        return object
    }

    /// The items of a list value: a `u32` count, then each item length-prefixed, filling it exactly.
    private func items(of field: Field, key: String) throws -> [Range<Int>] {
        var items: [Range<Int>] = []
        try forEachItem(of: field, key: key) { items.append($0) }
        return items
    }

    /// Calls `body` with each item of a list value, once the list's count is checked against its
    /// bytes; throws when an item does not fit or the items do not fill the value (after the items).
    private func forEachItem(of field: Field, key: String, _ body: (Range<Int>) throws -> Void) throws {
        var reader = ByteReader(bytes, region: .object(page: page), range: field.value)
        let count = try reader.readUInt32()
        try reader.require(UInt64(count) * 4, what: "\(count) items of \"\(key)\"")
        for _ in 0..<count { try body(try reader.readLengthPrefixed(what: "an item of \"\(key)\"")) }
        guard reader.isAtEnd else { throw corrupt("list \"\(key)\" does not fill its value", at: field.position) }
    }
}
