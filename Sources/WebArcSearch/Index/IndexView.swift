import Foundation
import Synchronization
import WebArc

/// An archive's search index as a reader walks it: every page read through the archive's
/// verified, cached page reads (spec §5.1, §17), so a damaged page is refused like any other and
/// a remote archive reads only the pages a query needs.
struct IndexView: Sendable {
    let reader: ArchiveReader
    let root: IndexRoot

    /// The most parsed pages a reader keeps.
    private static let parsedLimit = 256

    /// The index of `reader`, or nil when it has none (of a version its metadata key names, spec §17).
    init?(_ reader: ArchiveReader) throws {
        guard let (reference, version) = try reader.searchIndexRoot else { return nil }
        self.reader = reader
        root = try Self.cached(reference, reader) {
            try IndexRoot(try reader.searchPage(reference), version: version)
        }
    }

    /// Whether the index holds positions (version 1): phrases are then matched from them, not
    /// from the pages' text (spec §17.4).
    var hasPositions: Bool { root.version == 1 }

    private static func cached<T: Sendable>(
        _ reference: PageReference, _ reader: ArchiveReader, _ make: () throws -> T
    ) throws -> T {
        if let value = reader.searchCache.withLock({ $0[reference] }) as? T { return value }
        let value = try make()
        reader.searchCache.withLock { cache in
            if cache.count >= parsedLimit { cache.removeAll() }
            cache[reference] = value
        }
        return value
    }

    var documentCount: Int { root.documentCount }
    var averageLength: Double {
        root.documentCount == 0 ? 1 : max(1, Double(root.tokenCount) / Double(root.documentCount))
    }

    /// Term shard `number`, parsed and checked.
    func shard(_ number: Int) throws -> TermShard {
        let reference = root.termShards[root.termShards.startIndex + number]
        return try Self.cached(reference, reader) {
            try TermShard(
                try reader.searchPage(reference), firstTerm: root.termKeys[number], documentCount: documentCount,
                version: root.version)
        }
    }

    /// The entry for `term` and its shard, or nil when no document holds it.
    func lookup(_ term: [UInt8]) throws -> (shard: TermShard, entry: TermEntry)? {
        guard let number = IndexRoot.shard(for: term, in: root.termKeys) else { return nil }
        let shard = try shard(number)
        return shard.entry(term).map { (shard, $0) }
    }

    /// The terms that start with `prefix`, in order, at most `limit` of them, reading at most
    /// `maxShards` shards.
    func expand(prefix: [UInt8], limit: Int, maxShards: Int = 4) throws -> [(shard: TermShard, entry: TermEntry)] {
        var found: [(TermShard, TermEntry)] = []
        var number = IndexRoot.shard(for: prefix, in: root.termKeys) ?? 0
        var read = 0
        while number < root.termKeys.count, read < maxShards, found.count < limit {
            if read > 0, !root.termKeys[number].starts(with: prefix) { break }
            let shard = try shard(number)
            read += 1
            var index = shard.lowerBound(prefix)
            while index < shard.entries.count, found.count < limit, shard.entries[index].term.starts(with: prefix) {
                found.append((shard, shard.entries[index]))
                index += 1
            }
            if index < shard.entries.count { break }
            number += 1
        }
        return found
    }

    /// The bytes `range` of the stream the pages' payloads make, read page by page (announced
    /// together first, for a remote source).
    private func stream(
        _ pages: ArraySlice<PageReference>, _ range: Range<Int>, kind: SearchPage.Kind
    ) throws -> [UInt8] {
        // Not reserved by `range.count`: the shard's references declare it, and until each page is
        // read and its digest checked, a hostile shard can declare gigabytes it does not hold.
        var result: [UInt8] = []
        let needed = Self.pages(pages, holding: range)
        preload(needed.map(\.0))
        for (reference, part) in needed {
            let page = try reader.searchPage(reference)
            guard page.kind == kind, page.children.isEmpty else {
                throw WebArcError.corruptPage(
                    page: reference.offset, position: 1,
                    reason: "a search page of kind \(page.kind.rawValue) where \(kind.rawValue) belongs")
            }
            result += page.payload[(page.payloadStart + part.lowerBound)..<(page.payloadStart + part.upperBound)]
        }
        return result
    }

    /// The pages of a stream that hold its bytes `range`, each with the part of its payload it holds.
    private static func pages(
        _ pages: ArraySlice<PageReference>, holding range: Range<Int>
    ) -> [(PageReference, Range<Int>)] {
        var start = 0
        var needed: [(PageReference, Range<Int>)] = []
        for reference in pages {
            let length = Int(reference.rawLength) - SearchPage.headSize
            let overlap = (start..<start + length).clamped(to: range)
            if !overlap.isEmpty {
                needed.append((reference, (overlap.lowerBound - start)..<(overlap.upperBound - start)))
            }
            start += length
            if start >= range.upperBound { break }
        }
        return needed
    }

    /// Announces `pages` (search pages a query reads next) to the source, then reads and verifies
    /// them into the page cache on every core, so that the reads that follow find them there.
    ///
    /// Left to those reads when the pages would take more than a quarter of the page cache (each
    /// would be gone before its turn); an error is theirs to throw, where its context is known.
    ///
    /// `parse`, when given, is called instead of a plain read for the pages it covers (their
    /// parsed forms are cached too).
    private func preload(_ pages: [PageReference], parse: (@Sendable (Int) throws -> Void)? = nil) {
        // Pages the cache holds cost a look-up each, not worth the cores' start.
        guard reader.willReadSearchPages(pages) > 1 else { return }
        guard pages.reduce(0, { $0 + Int($1.rawLength) }) <= reader.pageCacheUsage.limit / 4 else { return }
        let reader = reader
        ConcurrentReads.forEach(pages.count, width: ProcessInfo.processInfo.activeProcessorCount) { number in
            if let parse { try? parse(number) } else { _ = try? reader.searchPage(pages[number]) }
        }
    }

    /// Announces the term shards that hold `terms` (and the first a prefix's terms start in), so
    /// that a remote source asks for them together rather than one after another, then reads them
    /// (``preload(_:)``).
    ///
    /// Norm pages (version 4) that take at most ``normPrefetchBytes`` in all come along: a query
    /// needs its candidates' length codes after its postings, and that would be one more round.
    func willReadShards(of terms: [[UInt8]]) {
        let numbers = Set(terms.compactMap { IndexRoot.shard(for: $0, in: root.termKeys) }).sorted()
        let normBytes = root.normPages.reduce(0) { $0 + Int($1.storedLength) }
        let norms = normBytes <= Self.normPrefetchBytes(reader.byteSource) ? root.normPages : []
        let view = self
        // Each shard parsed where it is read: the shards of a query's words are parsed at once.
        preload(numbers.map { root.termShards[root.termShards.startIndex + $0] } + norms) { number in
            if number < numbers.count {
                _ = try view.shard(numbers[number])
            } else {
                _ = try view.reader.searchPage(norms[norms.startIndex + number - numbers.count])
            }
        }
    }

    /// Stored bytes of norm pages read with the term shards: 64 KiB (a site of about 64 000
    /// pages) from a file; 256 KiB (about 250 000 pages) from a source that keeps more reads in
    /// flight than there are cores (a remote one), where the round trip it saves costs more than
    /// the bytes.
    static func normPrefetchBytes(_ source: any ByteSource) -> Int {
        source.concurrentReads > ProcessInfo.processInfo.activeProcessorCount ? 256 << 10 : 64 << 10
    }

    /// Announces the posting pages of these terms together, then reads them (``preload(_:)``).
    func willReadPostings(of found: [(shard: TermShard, entry: TermEntry)]) {
        preload(found.flatMap { Self.pages($0.shard.postingPages, holding: $0.entry.postings).map(\.0) })
    }

    /// Announces the document pages that hold these documents together, then reads them
    /// (``preload(_:)``).
    func willReadDocuments(_ numbers: [Int]) {
        let pages = Set(numbers.compactMap(documentPage(holding:)))
        preload(pages.sorted().map { root.documentPages[root.documentPages.startIndex + $0] })
    }

    /// The number of the document page that holds document `number` (the last page starting at or
    /// before it), or nil when none does.
    private func documentPage(holding number: Int) -> Int? {
        let starts = root.documentStarts
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= number { low = middle + 1 } else { high = middle }
        }
        return low > 0 ? low - 1 : nil
    }

    func postings(_ shard: TermShard, _ entry: TermEntry) throws -> [Posting] {
        try termPostings(shard, entry).all()
    }

    /// A term's postings, to be decoded a block at a time (versions 3 and 4) or whole.
    func termPostings(_ shard: TermShard, _ entry: TermEntry) throws -> TermPostings {
        let bytes = try stream(shard.postingPages, entry.postings, kind: .postings)
        return try TermPostings(
            bytes, count: entry.documentFrequency, documentCount: documentCount, version: root.version,
            norms: norms, page: shard.postingPages.first?.offset ?? 0)
    }

    /// The length codes of the norm pages (version 4), each page read and checked when first needed.
    var norms: NormLookup? {
        guard root.hasNorms else { return nil }
        let view = self
        var lookup = NormLookup(span: root.normSpan, documentCount: documentCount) { try view.normPage($0) }
        lookup.announce = { numbers in
            view.reader.willReadSearchPages(numbers.map { view.root.normPages[view.root.normPages.startIndex + $0] })
        }
        return lookup
    }

    /// Norm page `number`'s length codes, parsed and checked.
    private func normPage(_ number: Int) throws -> ArraySlice<UInt8> {
        let reference = root.normPages[root.normPages.startIndex + number]
        let count = min(root.normSpan, documentCount - number * root.normSpan)
        return try Self.cached(reference, reader) { try NormPage.parse(try reader.searchPage(reference), count: count) }
    }

    func positions(_ shard: TermShard, _ entry: TermEntry, _ postings: [Posting]) throws -> [[Int]] {
        let bytes = try stream(shard.positionPages, entry.positions, kind: .positions)
        return try PostingCodec.positions(bytes, postings: postings, page: shard.positionPages.first?.offset ?? 0)
    }

    /// Document `number`'s URL, title and length.
    func document(_ number: Int) throws -> DocumentEntry {
        let starts = root.documentStarts
        guard let page = documentPage(holding: number) else {
            throw WebArcError.corruptPage(page: 0, position: nil, reason: "no document page for \(number)")
        }
        let reference = root.documentPages[root.documentPages.startIndex + page]
        let end = page + 1 < starts.count ? starts[page + 1] : documentCount
        // The verified page comes from the reader's page cache; one entry of it is read.
        return try DocumentPage.entry(
            try reader.searchPage(reference), at: number - starts[page], of: end - starts[page])
    }

    /// Title shard `number`'s entries.
    func titles(_ number: Int) throws -> [(key: [UInt8], document: Int)] {
        let reference = root.titleShards[root.titleShards.startIndex + number]
        return try Self.cached(reference, reader) {
            try TitleShard.parse(
                try reader.searchPage(reference), firstKey: root.titleKeys[number], documentCount: documentCount)
        }
    }
}
