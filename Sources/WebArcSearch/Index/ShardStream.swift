import WebArc

/// One stream of a base's term shard (its postings or, version 1, its positions), read a page at
/// a time as the shard's terms ask for their ranges of it, in order.
///
/// A shard of frequent terms has a stream that grows with the archive; what is held is the pages
/// under the current term and at most as much again before it, not the stream whole. Bytes are
/// dropped once the ranges asked for have passed half of what is held, so that each byte is moved
/// at most once on average.
struct ShardStream {
    private let reader: ArchiveReader
    private let pages: ArraySlice<PageReference>
    private let kind: SearchPage.Kind
    /// The next page to read.
    private var next: Int
    /// Bytes read and not dropped, from stream offset ``start``.
    private var held: [UInt8] = []
    private var start = 0

    /// The stream whose pages are `pages`, each of kind `kind`, read from `reader`.
    init(_ reader: ArchiveReader, pages: ArraySlice<PageReference>, kind: SearchPage.Kind) {
        self.reader = reader
        self.pages = pages
        self.kind = kind
        next = pages.startIndex
    }

    /// The stream's bytes in `range`. A range before the last one asked for reads the pages again.
    ///
    /// - Throws: `corruptPage` for a page of another kind, with children, or whose payload is not
    ///   the length its reference gives, and for a range past the last page; the page reads' errors.
    mutating func bytes(_ range: Range<Int>) throws -> [UInt8] {
        guard !range.isEmpty else { return [] }
        if range.lowerBound < start {
            next = pages.startIndex
            held.removeAll(keepingCapacity: true)
            start = 0
        }
        let passed = min(range.lowerBound - start, held.count)
        if passed > 0, passed * 2 >= held.count {
            held.removeFirst(passed)
            start += passed
        }
        while start + held.count < range.upperBound {
            try readPage()
        }
        return Array(held[range.lowerBound - start..<range.upperBound - start])
    }

    private mutating func readPage() throws {
        guard next < pages.endIndex else {
            throw WebArcError.corruptPage(
                page: pages.last?.offset ?? 0, position: nil, reason: "a term's range past its shard's stream")
        }
        let reference = pages[next]
        let page = try reader.searchPage(reference)
        guard page.kind == kind, page.children.isEmpty else {
            throw WebArcError.corruptPage(
                page: reference.offset, position: 1,
                reason: "a search page of kind \(page.kind.rawValue) where \(kind.rawValue) belongs")
        }
        guard page.payload.count == Int(reference.rawLength) - SearchPage.headSize else {
            throw WebArcError.corruptPage(
                page: reference.offset, position: nil,
                reason: "a stream page of \(page.payload.count) payload bytes where its reference gives "
                    + "\(Int(reference.rawLength) - SearchPage.headSize)")
        }
        held += page.payload
        next += 1
    }
}
