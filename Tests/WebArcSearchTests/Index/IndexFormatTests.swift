import Testing

@testable import WebArc
@testable import WebArcSearch

/// Hostile search page payloads (spec §17.2) that once trapped the reader, found by
/// `FuzzSearchIndex` (Tools/fuzz/FailCases/FuzzSearchIndex): each is `corrupt-page` at the page.
@Suite struct IndexFormatTests {
    /// A term shard stored at 4096 naming `children`, with one term `tide` in 1 document whose
    /// postings take 3 bytes and positions 1, after the stream page counts `posting` and `position`.
    static func shard(children: [PageReference], posting: UInt64, position: UInt64) throws -> SearchPage {
        var writer = PayloadWriter()
        writer.integer(posting)
        writer.integer(position)
        writer.integer(1)
        writer.integer(0)
        writer.string(Array("tide".utf8))
        writer.integer(1)
        writer.integer(3)
        writer.integer(1)
        let raw = SearchPage.encode(kind: .terms, children: children, payload: writer.bytes)
        return try SearchPage(parsing: raw, page: 4096, pageArea: 16..<1 << 20)
    }

    static func child(at offset: UInt64, length: UInt32) -> PageReference {
        PageReference(
            offset: offset, storedLength: length, rawLength: length, codec: .raw, height: 0, digest: .ofEmpty)
    }

    /// The error parsing `page` as the shard of `tide` throws, or nil when it parses.
    static func error(parsing page: SearchPage) -> (page: UInt64, position: Int?, reason: String)? {
        do {
            _ = try TermShard(page, firstTerm: ArraySlice("tide".utf8), documentCount: 1, version: 1)
            return nil
        } catch let WebArcError.corruptPage(page, position, reason) {
            return (page, position, reason)
        } catch {
            Issue.record("not corrupt-page: \(error)")
            return nil
        }
    }

    @Test func aTermShardIsRead() throws {
        let page = try Self.shard(
            children: [Self.child(at: 100, length: 11), Self.child(at: 200, length: 9)], posting: 1, position: 1)
        let shard = try TermShard(page, firstTerm: ArraySlice("tide".utf8), documentCount: 1, version: 1)
        #expect(shard.entries.map(\.postings) == [0..<3])
        #expect(shard.entries.map(\.positions) == [0..<1])
    }

    @Test func streamPageCountsThatOverflowTheirSumAreCorrupt() throws {
        let page = try Self.shard(
            children: [Self.child(at: 100, length: 11), Self.child(at: 200, length: 9)], posting: .max, position: 3)
        let error = try #require(Self.error(parsing: page))
        #expect(error.page == 4096)
        #expect(error.reason == "18446744073709551615 + 3 stream pages for 2 children")
    }

    @Test func aStreamPageShorterThanAPageHeadIsCorrupt() throws {
        let page = try Self.shard(
            children: [Self.child(at: 100, length: 11), Self.child(at: 200, length: 1)], posting: 1, position: 1)
        let error = try #require(Self.error(parsing: page))
        #expect(error.page == 4096)
        #expect(error.position == SearchPage.headSize + PageReference.size)
        #expect(error.reason == "stream page 1 of 1 bytes, shorter than a page head")
    }

    /// A version 2 shard of `tide` (spec §17.2): no stream page counts, no positions length, every
    /// child a posting page.
    static func shardV2(children: [PageReference], postingsLength: UInt64) throws -> SearchPage {
        var writer = PayloadWriter()
        writer.integer(1)
        writer.integer(0)
        writer.string(Array("tide".utf8))
        writer.integer(1)
        writer.integer(postingsLength)
        let raw = SearchPage.encode(kind: .terms, children: children, payload: writer.bytes)
        return try SearchPage(parsing: raw, page: 4096, pageArea: 16..<1 << 20)
    }

    @Test func aVersion2TermShardHasPostingsOnly() throws {
        let page = try Self.shardV2(children: [Self.child(at: 100, length: 11)], postingsLength: 3)
        let shard = try TermShard(page, firstTerm: ArraySlice("tide".utf8), documentCount: 1, version: 2)
        #expect(shard.entries.map(\.postings) == [0..<3])
        #expect(shard.entries.map(\.positions) == [0..<0])
        #expect(shard.positionPages.isEmpty)
        // The same bytes read as version 1: the first term's bytes taken as stream page counts.
        #expect(throws: WebArcError.self) {
            try TermShard(page, firstTerm: ArraySlice("tide".utf8), documentCount: 1, version: 1)
        }
    }

    @Test func aVersion2ShardWhoseLengthsMissItsPagesIsCorrupt() throws {
        let page = try Self.shardV2(children: [Self.child(at: 100, length: 11)], postingsLength: 4)
        #expect(throws: WebArcError.self) {
            try TermShard(page, firstTerm: ArraySlice("tide".utf8), documentCount: 1, version: 2)
        }
    }
}
