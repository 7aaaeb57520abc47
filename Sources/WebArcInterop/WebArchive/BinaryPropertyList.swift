import Foundation

/// A property-list value whose dictionaries keep the order they are given, so that writing one
/// gives the same bytes every time (Foundation's binary writer follows hash order, which changes
/// from one dictionary to the next).
indirect enum PropertyListValue: Equatable {
    case string(String)
    case data(Data)
    case integer(Int)
    case boolean(Bool)
    /// A keyed-archive object reference (`CF$UID`).
    case uid(UInt32)
    case array([PropertyListValue])
    /// Key/value pairs, written in the order given.
    case dictionary([(String, PropertyListValue)])

    static func == (lhs: PropertyListValue, rhs: PropertyListValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): a == b
        case (.data(let a), .data(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.boolean(let a), .boolean(let b)): a == b
        case (.uid(let a), .uid(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.dictionary(let a), .dictionary(let b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
        default: false
        }
    }

    /// A dictionary with its keys in code-point order, as Foundation's XML writer orders them.
    static func sortedDictionary(_ pairs: [String: PropertyListValue]) -> PropertyListValue {
        .dictionary(
            pairs.sorted { $0.key.unicodeScalars.lexicographicallyPrecedes($1.key.unicodeScalars) }.map {
                ($0.key, $0.value)
            })
    }
}

/// Writes a ``PropertyListValue`` as an Apple binary property list (`bplist00`): objects, then
/// the offset table, then the 32-byte trailer. Deterministic: the same value gives the same bytes.
enum BinaryPropertyListWriter {
    /// The `bplist00` bytes of `root`.
    static func data(_ root: PropertyListValue) -> Data {
        var objects: [[UInt8]] = []
        // First pass: count objects so that reference widths are known before any are written.
        let count = objectCount(root)
        let referenceSize = count < 1 << 8 ? 1 : count < 1 << 16 ? 2 : 4
        _ = flatten(root, into: &objects, referenceSize: referenceSize)
        var output: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(output.count)
            output += object
        }
        let tableOffset = output.count
        let offsetSize = tableOffset < 1 << 8 ? 1 : tableOffset < 1 << 16 ? 2 : tableOffset < 1 << 32 ? 4 : 8
        for offset in offsets { output += bigEndian(UInt64(offset), size: offsetSize) }
        output += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        output += bigEndian(UInt64(objects.count), size: 8)
        output += bigEndian(0, size: 8)  // the root is object 0
        output += bigEndian(UInt64(tableOffset), size: 8)
        return Data(output)
    }

    private static func objectCount(_ value: PropertyListValue) -> Int {
        switch value {
        case .array(let items): 1 + items.reduce(0) { $0 + objectCount($1) }
        case .dictionary(let pairs): 1 + pairs.reduce(0) { $0 + 1 + objectCount($1.1) }
        default: 1
        }
    }

    /// Appends `value` and its children depth first (parent before children) and returns its index.
    private static func flatten(_ value: PropertyListValue, into objects: inout [[UInt8]], referenceSize: Int) -> Int {
        let index = objects.count
        objects.append([])
        switch value {
        case .string(let text):
            if text.utf8.allSatisfy({ $0 < 0x80 }) {
                objects[index] = marker(0x5, count: text.utf8.count) + Array(text.utf8)
            } else {
                let units = Array(text.utf16)
                objects[index] = marker(0x6, count: units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            }
        case .data(let data):
            objects[index] = marker(0x4, count: data.count) + Array(data)
        case .integer(let number):
            objects[index] = integer(number)
        case .boolean(let flag):
            objects[index] = [flag ? 0x09 : 0x08]
        case .uid(let number):
            let size = number < 1 << 8 ? 1 : number < 1 << 16 ? 2 : 4
            objects[index] = [0x80 | UInt8(size - 1)] + bigEndian(UInt64(number), size: size)
        case .array(let items):
            let references = items.map { flatten($0, into: &objects, referenceSize: referenceSize) }
            objects[index] =
                marker(0xA, count: items.count) + references.flatMap { bigEndian(UInt64($0), size: referenceSize) }
        case .dictionary(let pairs):
            let keys = pairs.map { flatten(.string($0.0), into: &objects, referenceSize: referenceSize) }
            let values = pairs.map { flatten($0.1, into: &objects, referenceSize: referenceSize) }
            objects[index] =
                marker(0xD, count: pairs.count) + (keys + values).flatMap { bigEndian(UInt64($0), size: referenceSize) }
        }
        return index
    }

    /// A type nibble with its count, the count following as an integer object when it exceeds 14.
    private static func marker(_ type: UInt8, count: Int) -> [UInt8] {
        count < 15 ? [type << 4 | UInt8(count)] : [type << 4 | 0xF] + integer(count)
    }

    /// An integer object: 1, 2, 4 or 8 bytes big-endian; negative numbers always take 8.
    private static func integer(_ number: Int) -> [UInt8] {
        guard number >= 0 else { return [0x13] + bigEndian(UInt64(bitPattern: Int64(number)), size: 8) }
        if number < 1 << 8 { return [0x10] + bigEndian(UInt64(number), size: 1) }
        if number < 1 << 16 { return [0x11] + bigEndian(UInt64(number), size: 2) }
        if number < 1 << 32 { return [0x12] + bigEndian(UInt64(number), size: 4) }
        return [0x13] + bigEndian(UInt64(number), size: 8)
    }

    private static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
    }
}
