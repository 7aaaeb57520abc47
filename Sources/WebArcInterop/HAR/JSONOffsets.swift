/// Finds where each element of one JSON array starts, without building the document, so HAR
/// messages can name an entry's byte offset (Foundation's JSON parser gives none).
enum JSONOffsets {
    /// The byte offsets of the elements of the array reached by the object keys `path` from the
    /// root (for HAR, `["log", "entries"]`); empty when the document does not have that shape.
    static func elementOffsets(in bytes: [UInt8], path: [String]) -> [Int] {
        // One frame per open container: whether it is an array, and for objects the last key read.
        var stack: [(isArray: Bool, key: String?)] = []
        var expectingKey = false
        var offsets: [Int] = []
        let wanted = path.map { Array($0.utf8) }
        func valueStarts(at index: Int) {
            guard stack.count == wanted.count + 1, stack.last?.isArray == true else { return }
            for (frame, key) in zip(stack, wanted) where frame.isArray || frame.key.map({ Array($0.utf8) }) != key {
                return
            }
            offsets.append(index)
        }
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ":"):
                index += 1
            case UInt8(ascii: ","):
                expectingKey = stack.last?.isArray == false
                index += 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                valueStarts(at: index)
                let isArray = bytes[index] == UInt8(ascii: "[")
                stack.append((isArray, nil))
                expectingKey = !isArray
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard !stack.isEmpty else { return [] }
                stack.removeLast()
                expectingKey = false
                index += 1
            case UInt8(ascii: "\""):
                let start = index
                index += 1
                while index < bytes.count && bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                if expectingKey, !stack.isEmpty {
                    stack[stack.count - 1].key = String(
                        decoding: bytes[(start + 1)..<min(index, bytes.count)], as: UTF8.self)
                    expectingKey = false
                } else {
                    valueStarts(at: start)
                }
                index += 1
            default:
                valueStarts(at: index)
                while index < bytes.count, !",}] \t\r\n".utf8.contains(bytes[index]) { index += 1 }
            }
        }
        return offsets
    }
}
