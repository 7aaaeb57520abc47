/// A page of the full-text index (type 5): the pages it names, then a payload only the search
/// module reads. The core parses the head so that it can verify and lay out every page of the
/// index (digests, extents) without knowing what the payload means.
///
/// ```
/// | 5 | kind | reserved(2) | childCount | child(56) … | payload …
/// ```
/// Spec: §17 Search index.
package struct SearchPage: Sendable {
    /// Bytes before the child references.
    package static let headSize = 8
    /// The page type byte.
    package static let type: UInt8 = 5

    /// What the payload holds (spec §17.2); the core checks only that the kind is known.
    package enum Kind: UInt8, Sendable, CaseIterable {
        case root = 1
        case terms = 2
        case postings = 3
        case positions = 4
        case documents = 5
        case titles = 6
        /// Each document's length code (index version 4).
        case norms = 7
    }

    package let kind: Kind
    /// The pages this page names, in the order its payload refers to them.
    package let children: [PageReference]
    /// The decoded page; the payload is `bytes[payloadStart...]`.
    package let bytes: [UInt8]
    /// Where the payload starts in ``bytes``.
    package let payloadStart: Int
    /// Where the page is stored, for errors.
    package let offset: UInt64

    /// The payload.
    package var payload: ArraySlice<UInt8> { bytes[payloadStart...] }

    /// Parses a decoded search page stored at `page`, checking each child reference against spec §5.1.
    ///
    /// - Throws: `corruptPage` (at `page`, with the position) for an unknown kind, a child count
    ///   past the page, or a child reference that breaks §5.1 (other than its decode ratio).
    package init(parsing raw: [UInt8], page: UInt64, pageArea: Range<UInt64>) throws {
        var reader = ByteReader(raw, region: .page(offset: page))
        try reader.skip(1)
        let kindValue = try reader.readUInt8()
        guard let kind = Kind(rawValue: kindValue) else {
            throw WebArcError.corruptPage(page: page, position: 1, reason: "unknown search page kind \(kindValue)")
        }
        try reader.skip(2)
        let count = try reader.readUInt32()
        try reader.require(UInt64(count) * UInt64(PageReference.size), what: "\(count) search page children")
        var children: [PageReference] = []
        children.reserveCapacity(Int(count))
        for _ in 0..<count {
            let position = reader.position
            let child = try PageReference(parsing: &reader)
            if case .invalid(let reason)? = child.violation(pageArea: pageArea) {
                throw WebArcError.corruptPage(page: page, position: position, reason: "child: \(reason)")
            }
            guard child.height == 0 else {
                throw WebArcError.corruptPage(
                    page: page, position: position, reason: "a search page child of height \(child.height), not 0")
            }
            children.append(child)
        }
        self.kind = kind
        self.children = children
        bytes = raw
        payloadStart = reader.position
        offset = page
    }

    /// A search page: its head, its children's references, then `payload`.
    package static func encode(kind: Kind, children: [PageReference], payload: [UInt8]) -> [UInt8] {
        var writer = ByteWriter()
        writer.write(type)
        writer.write(kind.rawValue)
        writer.writeZeros(2)
        writer.write(UInt32(children.count))
        for child in children { child.serialize(into: &writer) }
        writer.write(bytes: payload)
        return writer.bytes
    }
}
