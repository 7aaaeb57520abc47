import Foundation

/// Parses property lists from untrusted files without handing Foundation what crashes it.
///
/// swift-corelibs-foundation stops the process (a null dereference while bridging `NSSet`) on a
/// binary property list holding a set whose members are not hashable, e.g. a dictionary. Web
/// archives hold no sets, so a binary list with any set object is refused before Foundation sees
/// it; every object Foundation can reach is named by the offset table, which is what is checked.
enum PropertyListReading {
    /// The property list in `data`, or nil when it does not parse or holds a set.
    static func parse(_ data: Data) -> Any? {
        guard !holdsSetOrIsMalformed(Array(data)) else { return nil }
        return try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    }

    /// Whether `bytes`, a binary property list (`bplist00`), has an object whose marker is a set
    /// (`0xC_`) or a trailer or offset table that does not fit the bytes. Other input (an XML
    /// list, which has no sets) gives false.
    static func holdsSetOrIsMalformed(_ bytes: [UInt8]) -> Bool {
        guard bytes.starts(with: Array("bplist".utf8)) else { return false }
        guard bytes.count >= 8 + 32 else { return true }
        let trailer = bytes.count - 32
        func bigEndian(_ start: Int, _ width: Int) -> UInt64 {
            bytes[start..<start + width].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        }
        let offsetSize = Int(bytes[trailer + 6])
        let objectCount = bigEndian(trailer + 8, 8)
        let tableOffset = bigEndian(trailer + 24, 8)
        guard (1...8).contains(offsetSize), tableOffset <= UInt64(trailer),
            objectCount <= (UInt64(trailer) - tableOffset) / UInt64(offsetSize)
        else { return true }
        for index in 0..<Int(objectCount) {
            let offset = bigEndian(Int(tableOffset) + index * offsetSize, offsetSize)
            guard offset < UInt64(trailer) else { return true }
            if bytes[Int(offset)] & 0xF0 == 0xC0 { return true }
        }
        return false
    }
}
