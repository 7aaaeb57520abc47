#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A decoded, parsed page of one of the four types.
///
/// Spec: §5 Pages.
enum Page: Sendable {
    case interior(InteriorPage)
    case recordLeaf(RecordLeaf)
    case bodyLeaf(BodyLeaf)
    case metadata(MetadataPage)
    case search(SearchPage)

    /// The page type byte.
    enum Kind: UInt8, Sendable {
        case interior = 1
        case recordLeaf = 2
        case bodyLeaf = 3
        case metadata = 4
        case search = 5
    }

    /// Which tree an interior page belongs to.
    enum Tree: UInt8, Sendable {
        case records = 1
        case bodies = 2

        /// The leaf type of the tree.
        var leafKind: Kind { self == .records ? .recordLeaf : .bodyLeaf }
    }

    /// What a reader expects where it reads a page: the metadata page, a node of a tree at the
    /// height its reference gives, or a page of the search index (spec §17).
    enum Expectation: Sendable {
        case metadata
        case node(Tree)
        case search
    }

    /// Reads the stored bytes of `reference`: checks their SHA-256 before anything decodes them,
    /// decodes, then parses the page it must be (spec §5.1).
    ///
    /// - Parameter pageArea: where pages may lie, for the child references of an interior page.
    /// - Throws: `pageDigest`, `corruptPage`, `amplification`, `corruptIndex` (a body entry over
    ///   a bound of §10).
    init(stored: [UInt8], reference: PageReference, expected: Expectation, pageArea: Range<UInt64>) throws {
        let raw = try Self.decode(stored: stored, reference: reference)
        let offset = reference.offset
        switch expected {
        case .metadata where reference.height != 0:
            throw WebArcError.corruptPage(
                page: offset, position: nil, reason: "the metadata page has height \(reference.height), not 0")
        case .search where reference.height != 0:
            throw WebArcError.corruptPage(
                page: offset, position: nil, reason: "a search page has height \(reference.height), not 0")
        default: break
        }
        guard let kindValue = raw.first, let kind = Kind(rawValue: kindValue) else {
            throw WebArcError.corruptPage(page: offset, position: 0, reason: "unknown page type \(raw.first ?? 0)")
        }
        let wanted: Kind
        switch expected {
        case .metadata: wanted = .metadata
        case .search: wanted = .search
        case .node(let tree):
            wanted = reference.height > 0 ? .interior : tree.leafKind
        }
        guard kind == wanted else {
            throw WebArcError.corruptPage(
                page: offset, position: 0,
                reason: "a page of type \(kind.rawValue) where type \(wanted.rawValue) belongs")
        }
        switch kind {
        case .interior:
            guard case .node(let tree) = expected else { fatalError("unreachable: interior pages are tree nodes") }
            self = .interior(try InteriorPage(parsing: raw, page: offset, tree: tree, pageArea: pageArea))
        case .recordLeaf: self = .recordLeaf(try RecordLeaf(parsing: raw, page: offset))
        case .bodyLeaf: self = .bodyLeaf(try BodyLeaf(parsing: raw, page: offset))
        case .metadata: self = .metadata(try MetadataPage(parsing: raw, page: offset))
        case .search: self = .search(try SearchPage(parsing: raw, page: offset, pageArea: pageArea))
        }
    }

    /// The decoded bytes of a page, verified first: the digest is over the stored bytes so that a
    /// damaged page is refused before any decoder sees it.
    static func decode(stored: [UInt8], reference: PageReference) throws -> [UInt8] {
        guard SHA256Hash.of(stored) == reference.digest else { throw WebArcError.pageDigest(page: reference.offset) }
        switch reference.codec {
        case .raw:
            return stored
        case .lz4:
            guard let raw = LZ4.decode(stored, rawLength: Int(reference.rawLength)) else {
                throw WebArcError.corruptPage(
                    page: reference.offset, position: nil,
                    reason: "the LZ4 block does not decode to \(reference.rawLength) bytes")
            }
            return raw
        case nil:
            throw WebArcError.corruptPage(
                page: reference.offset, position: nil, reason: "unknown page codec \(reference.codecValue)")
        }
    }

    /// The decoded size of the parsed page, for the cache's budget.
    var cost: Int {
        switch self {
        case .interior(let page): page.keys.reduce(64) { $0 + $1.count + PageReference.size + 32 }
        case .recordLeaf(let page):
            256 + page.bytes.count + page.entries.count * MemoryLayout<RecordLeaf.Entry>.stride
                + page.bodyCount * 4
        case .bodyLeaf(let page): page.bytes.count + page.entries.reduce(64) { $0 + $1.encodedSize + 64 }
        case .metadata(let page): page.bytes.count
        case .search(let page): page.bytes.count + page.children.count * 64
        }
    }
}

extension ByteReader {
    /// Throws unless every byte has been read: `corruptPage` in a page, `corruptIndex` in an object.
    func requireEnd(_ what: String) throws {
        guard !isAtEnd else { return }
        let reason = "\(remaining) bytes after the \(what)"
        switch region {
        case .page(let offset): throw WebArcError.corruptPage(page: offset, position: position, reason: reason)
        case .object(let page): throw WebArcError.corruptIndex(page: page, position: position, reason: reason)
        case .file(let section, let offset):
            throw WebArcError.truncated(
                section: section, offset: offset + UInt64(position), needed: 0, available: UInt64(remaining))
        }
    }
}

/// Keys compared by *bytes*: unsigned lexicographic order, a proper prefix first (spec §2).
enum KeyOrder {
    static func less<A: Collection, B: Collection>(_ lhs: A, _ rhs: B) -> Bool
    where A.Element == UInt8, B.Element == UInt8 {
        lhs.lexicographicallyPrecedes(rhs)
    }

    /// Two arrays' order in one `memcmp`: negative when `lhs` comes first, 0 when equal, positive
    /// when after. The writer sorts its records with it (keys a few dozen bytes long, most
    /// sharing their origin and folders, so an element-wise walk goes far before it finds a
    /// difference, on one core while the pack finishes).
    static func compare(_ lhs: [UInt8], _ rhs: [UInt8]) -> Int {
        lhs.withUnsafeBufferPointer { a in rhs.withUnsafeBufferPointer { b in compare(a, b) } }
    }

    /// Two byte buffers' order in one `memcmp`, as for two arrays (the string sorts of `pack`'s scan use it too).
    static func compare(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(lhs.count, rhs.count)
        let order = common == 0 ? 0 : memcmp(lhs.baseAddress!, rhs.baseAddress!, common)
        return order != 0 ? Int(order) : lhs.count - rhs.count
    }
}
