import WebArc

/// Norm pages (kind 7, index version 4; spec §17.2): each document's length code, one byte, in
/// pages of the root's `normSpan` documents, so that postings need not carry it.
enum NormPage {
    /// The `count` length codes of a norm page, checked: kind, no children, exactly `count` bytes.
    static func parse(_ page: SearchPage, count: Int) throws -> ArraySlice<UInt8> {
        guard page.kind == .norms, page.children.isEmpty else {
            throw WebArcError.corruptPage(
                page: page.offset, position: 1, reason: "a search page of kind \(page.kind.rawValue), not norms")
        }
        guard page.payload.count == count else {
            throw WebArcError.corruptPage(
                page: page.offset, position: nil,
                reason: "a norm page of \(page.payload.count) length codes for \(count) documents")
        }
        return page.payload
    }

    /// Writes `codes` (document order) as norm pages of `span` codes each, returning their references.
    static func write(
        _ codes: [UInt8], span: Int, _ store: ([UInt8]) throws -> SearchPageAddress
    ) throws -> [PageReference] {
        try stride(from: 0, to: codes.count, by: span).map { start in
            let payload = Array(codes[start..<min(codes.count, start + span)])
            return try store(SearchPage.encode(kind: .norms, children: [], payload: payload)).reference
        }
    }
}

/// Gives postings their documents' length codes from an index's norm pages (version 4), a page
/// at a time: `page(number)` returns norm page `number`'s codes, verified.
struct NormLookup: Sendable {
    let span: Int
    let documentCount: Int
    let page: @Sendable (Int) throws -> ArraySlice<UInt8>
    /// Told the pages a list's documents lie in before any is read, so that a remote source asks
    /// for them together.
    var announce: @Sendable ([Int]) -> Void = { _ in }

    /// Announces the norm pages of documents `ranges` (ascending), each page once.
    func willFill(_ ranges: [ClosedRange<Int>]) {
        var pages: [Int] = []
        for range in ranges {
            for number in (range.lowerBound / span)...(range.upperBound / span) where number != pages.last {
                pages.append(number)
            }
        }
        announce(pages)
    }

    /// Sets each posting's `lengthCode` (documents ascending, each below the document count).
    func fill(_ postings: inout [Posting]) throws {
        // The page's documents: the codes' indices moved to document numbers.
        var first = 0
        var end = 0
        var codes: ArraySlice<UInt8> = []
        for index in postings.indices {
            let document = postings[index].document
            if document < first || document >= end {
                let number = document / span
                codes = try page(number)
                first = number * span
                end = first + codes.count
            }
            postings[index].lengthCode = codes[codes.startIndex + document - first]
        }
    }
}
