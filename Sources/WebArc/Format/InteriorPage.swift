/// A tree node above the leaves: its children in key order, each named by its first key.
///
/// ```
/// | 1 | tree | reserved(2) | count | keyLength key child(56) | keyLength key child(56) | …
/// ```
/// Spec: §5.2 Interior page.
struct InteriorPage: Sendable {
    /// Bytes before the entries.
    static let headSize = 8

    let tree: Page.Tree
    /// Entry i's key: the first key of child i.
    let keys: [ArraySlice<UInt8>]
    let children: [PageReference]
    /// Position of each child reference in the decoded page.
    let childPositions: [Int]

    /// Parses a decoded interior page stored at `page`, checking each child reference against
    /// spec §5.1.
    ///
    /// - Throws: `corruptPage` (at `page`, with the position) for a broken layout, another tree or
    ///   a child reference that breaks §5.1 (other than its decode ratio).
    init(parsing raw: [UInt8], page: UInt64, tree expected: Page.Tree, pageArea: Range<UInt64>) throws {
        var reader = ByteReader(raw, region: .page(offset: page))
        try reader.skip(1)
        let treeValue = try reader.readUInt8()
        guard let tree = Page.Tree(rawValue: treeValue), tree == expected else {
            throw WebArcError.corruptPage(
                page: page, position: 1, reason: "interior page of tree \(treeValue) in tree \(expected.rawValue)")
        }
        self.tree = tree
        try reader.skip(2)
        let count = try reader.readUInt32()
        guard count >= 1 else {
            throw WebArcError.corruptPage(page: page, position: 4, reason: "an interior page with no entries")
        }
        try reader.require(UInt64(count) * UInt64(4 + PageReference.size), what: "\(count) interior entries")
        var keys: [ArraySlice<UInt8>] = []
        var children: [PageReference] = []
        var positions: [Int] = []
        for _ in 0..<count {
            keys.append(raw[try reader.readLengthPrefixed(what: "key")])
            let position = reader.position
            let child = try PageReference(parsing: &reader)
            // A child's decode ratio is named at the child when it is read (spec §5.1).
            if case .invalid(let reason)? = child.violation(pageArea: pageArea) {
                throw WebArcError.corruptPage(page: page, position: position, reason: "child: \(reason)")
            }
            children.append(child)
            positions.append(position)
        }
        try reader.requireEnd("entries")
        self.keys = keys
        self.children = children
        childPositions = positions
    }

    /// The child to descend into for `key`: the last whose first key is *bytes*-≤ `key`, or nil
    /// when every first key is greater (spec §8, Appendix B).
    func childIndex<K: Collection>(for key: K) -> Int? where K.Element == UInt8 {
        var low = 0
        var high = keys.count
        while low < high {
            let middle = (low + high) / 2
            if KeyOrder.less(key, keys[middle]) { high = middle } else { low = middle + 1 }
        }
        return low == 0 ? nil : low - 1
    }

    /// Encodes an interior page of `tree` naming `entries`.
    static func encode(tree: Page.Tree, entries: [(key: [UInt8], child: PageReference)]) -> [UInt8] {
        var writer = ByteWriter(capacity: headSize + entries.reduce(0) { $0 + entrySize(key: $1.key) })
        writer.write(Page.Kind.interior.rawValue)
        writer.write(tree.rawValue)
        writer.writeZeros(2)
        writer.write(UInt32(entries.count))
        for entry in entries {
            writer.writeLengthPrefixed(entry.key)
            entry.child.serialize(into: &writer)
        }
        return writer.bytes
    }

    /// Bytes one entry with `key` takes.
    static func entrySize(key: [UInt8]) -> Int { 4 + key.count + PageReference.size }
}
