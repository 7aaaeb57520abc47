import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcSearch

/// An applied update's search index built from its base's index for the documents it keeps
/// (``SearchIndexBuilder/reuseIndex(of:)``): the result byte for byte the new release packed
/// afresh, and a base whose index cannot serve falling back to analysing every document.
@Suite struct IndexReuseTests {
    /// The pages of release 1: the version tests' pages, a folder answered twice with one body,
    /// and a plain-text page.
    static let release1: [(path: String, html: String)] =
        SearchIndexVersionTests.pages + [
            ("dir/", "<title>Folder</title><p>an index of otters and rivers</p>"),
            ("dir/index.html", "<title>Folder</title><p>an index of otters and rivers</p>"),
        ]

    /// Release 2: one page's text changed, one's title, one deleted, one added, the folder's
    /// second answer changed (so the first keeps the document).
    static let release2: [(path: String, html: String)] = {
        var pages = release1
        pages[0].html = "<title>Changed</title><p>blue river otters</p>"
        pages[1].html = pages[1].html.replacingOccurrences(of: "<title>", with: "<title>Renamed ")
        pages.remove(at: 5)
        pages.append(("added.html", "<title>Added page</title><p>kingfishers over the green water</p>"))
        pages[pages.count - 2].html = "<title>Folder page</title><p>rivers</p>"
        return pages
    }()

    /// Release 3: on release 2, another page changed and one more added.
    static let release3: [(path: String, html: String)] = {
        var pages = release2
        pages[10].html = "<title>Ten</title><p>herons wading</p>"
        pages.append(("later.html", "<title>Later</title><p>salmon leaping upstream</p>"))
        return pages
    }()

    static func register() {
        for version in IndexFormat.versions {
            SearchIndexRegistry.register(version: version) { SearchIndexBuilder(version: version) }
        }
    }

    static func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    /// Release 1 and 2 written with index `version`, the update between them applied.
    static func apply(
        version: UInt64, in folder: TemporaryFolder, compact: Bool = false
    ) throws -> UpdateApplier.Summary {
        register()
        let (old, new) = (folder.file("old.webarc"), folder.file("new.webarc"))
        _ = try SearchIndexTests.write(release1, to: old, version: version)
        _ = try SearchIndexTests.write(release2, to: new, version: version)
        return try update(old, to: new, in: folder, compact: compact)
    }

    /// The update from `old` to `new` (compact or an update archive) applied to `old` in
    /// `folder`'s applied.webarc, which must be `new` byte for byte; the apply's summary.
    static func update(
        _ old: String, to new: String, in folder: TemporaryFolder, compact: Bool = false
    ) throws -> UpdateApplier.Summary {
        let applied = folder.file("applied.webarc")
        let bases = try LayerStack([try ArchiveReader(path: old)])
        let summary: UpdateApplier.Summary
        if compact {
            let update = folder.file("update.webarcu")
            try CompactUpdateBuilder(old: bases, new: try ArchiveReader(path: new)).write(to: update)
            summary = try CompactApplier(update: update, bases: bases).write(to: applied)
        } else {
            let update = folder.file("update.webarc")
            try UpdateBuilder(old: bases, new: try ArchiveReader(path: new)).write(to: update)
            let stack = try LayerStack([try ArchiveReader(path: update), try ArchiveReader(path: old)])
            summary = try UpdateApplier(stack: stack).write(to: applied)
        }
        #expect(try bytes(applied) == bytes(new))
        return summary
    }

    @Test(arguments: [UInt64(1), 2, 3, 4])
    func applyTakesUnchangedDocumentsFromTheBase(version: UInt64) throws {
        let folder = try TemporaryFolder()
        let summary = try Self.apply(version: version, in: folder)
        // Release 2 indexes 65 documents (the folder's two answers are one); the changed page, the
        // renamed one, the added one and the folder's (its first answer's body now differs from the
        // second's, which it was indexed under) are analysed.
        let new = try ArchiveReader(path: folder.file("applied.webarc"))
        #expect(try IndexView(new)?.documentCount == 65)
        #expect(summary.searchDocumentsReused == 61)
        #expect(!summary.searchRebuilt)
        #expect(try new.search("kingfishers").map(\.url) == ["http://docs.test/added.html"])
        #expect(try new.search("\"blue river\" otters").map(\.url) == ["http://docs.test/p/0.html"])
        #expect(try new.search("renamed").map(\.url) == ["http://docs.test/p/1.html"])
        #expect(try new.suggest("renamed").map(\.url) == ["http://docs.test/p/1.html"])
        #expect(ArchiveVerifier.verify(new).problems.isEmpty)
    }

    @Test func aCompactUpdateTakesThemToo() throws {
        let folder = try TemporaryFolder()
        let summary = try Self.apply(version: 2, in: folder, compact: true)
        #expect(summary.searchDocumentsReused == 61)
        #expect(!summary.searchRebuilt)
    }

    @Test func aStackOfTwoUpdatesTakesThemFromTheBottom() throws {
        Self.register()
        let folder = try TemporaryFolder()
        let paths = (1...3).map { folder.file("r\($0).webarc") }
        for (pages, path) in zip([Self.release1, Self.release2, Self.release3], paths) {
            _ = try SearchIndexTests.write(pages, to: path)
        }
        let (u12, u23) = (folder.file("u12.webarc"), folder.file("u23.webarc"))
        try UpdateBuilder(
            old: try LayerStack([try ArchiveReader(path: paths[0])]), new: try ArchiveReader(path: paths[1])
        )
        .write(to: u12)
        let layered = try LayerStack([try ArchiveReader(path: u12), try ArchiveReader(path: paths[0])])
        try UpdateBuilder(old: layered, new: try ArchiveReader(path: paths[2])).write(to: u23)
        let stack = try LayerStack([
            try ArchiveReader(path: u23), try ArchiveReader(path: u12), try ArchiveReader(path: paths[0]),
        ])
        let applied = folder.file("applied.webarc")
        let summary = try UpdateApplier(stack: stack).write(to: applied)
        #expect(try Self.bytes(applied) == Self.bytes(paths[2]))
        // Release 1's documents but the five changed since and page 10.
        #expect(summary.searchDocumentsReused == 60)
        #expect(try ArchiveReader(path: applied).search("salmon").map(\.url) == ["http://docs.test/later.html"])
    }

    /// A builder with a tiny spill threshold (many runs) over a base gives the pages a fresh build
    /// of the same responses gives, whether the join renumbers a few terms at a time on every core
    /// or thousands.
    @Test(arguments: [UInt64(1), 2, 3, 4], [1, 3, 4096])
    func runsJoinTheBaseTermsAsAFreshBuild(version: UInt64, batchTerms: Int) throws {
        let folder = try TemporaryFolder()
        let old = folder.file("old.webarc")
        _ = try SearchIndexTests.write(Self.release1, to: old, version: version)
        let fresh = folder.file("fresh.webarc")
        _ = try SearchIndexTests.write(Self.release2, to: fresh, spill: 512, version: version)
        let builder = SearchIndexBuilder(version: version, spillThreshold: 512)
        builder.batchTerms = batchTerms
        #expect(builder.reuseIndex(of: try ArchiveReader(path: old)))
        let joined = folder.file("joined.webarc")
        try SearchIndexTests.write(Self.release2, to: joined, index: builder)
        #expect(builder.runCount > 1)
        #expect(builder.reusedDocuments == 61)
        #expect(try Self.bytes(joined) == Self.bytes(fresh))
    }

    @Test func aBaseOfAnotherIndexVersionIsNotTaken() throws {
        Self.register()
        let folder = try TemporaryFolder()
        let (old, new) = (folder.file("old.webarc"), folder.file("new.webarc"))
        _ = try SearchIndexTests.write(Self.release1, to: old, version: 1)
        _ = try SearchIndexTests.write(Self.release2, to: new, version: 2)
        let summary = try Self.update(old, to: new, in: folder)
        #expect(summary.searchDocumentsReused == 0)
    }

    /// A base of the same index version none of whose documents is kept (every page edited):
    /// nothing is taken, and the titles and terms are all the new pages'.
    @Test func aBaseWithNoDocumentKeptGivesNone() throws {
        Self.register()
        let folder = try TemporaryFolder()
        let (old, new) = (folder.file("old.webarc"), folder.file("new.webarc"))
        _ = try SearchIndexTests.write(Self.release1, to: old)
        _ = try SearchIndexTests.write(Self.release1.map { ($0.path, $0.html + "<p>edited</p>") }, to: new)
        let summary = try Self.update(old, to: new, in: folder)
        #expect(summary.searchDocumentsReused == 0)
        #expect(!summary.searchRebuilt)
        #expect(try ArchiveReader(path: folder.file("applied.webarc")).suggest("folder").count == 1)
    }

    /// A base whose index does not hold what its bodies give (here every document has one more
    /// word): the pass that took from it does not give the target, and the apply runs again
    /// analysing every document.
    @Test func aBaseIndexThatDoesNotMatchItsBodiesFallsBack() throws {
        Self.register()
        let folder = try TemporaryFolder()
        let (old, new) = (folder.file("old.webarc"), folder.file("new.webarc"))
        try SearchIndexTests.write(Self.release1, to: old, index: SkewedBuilder())
        #expect(try ArchiveReader(path: old).search("zebra", limit: 100).count == 64)
        _ = try SearchIndexTests.write(Self.release2, to: new)
        let summary = try Self.update(old, to: new, in: folder)
        #expect(summary.searchRebuilt)
        #expect(summary.searchDocumentsReused == 0)
        #expect(try ArchiveReader(path: folder.file("applied.webarc")).search("zebra").isEmpty)
    }

    /// A base whose index has a damaged posting page: the apply does not fail for it, it analyses
    /// every document instead.
    @Test func aDamagedBaseIndexFallsBack() throws {
        Self.register()
        let folder = try TemporaryFolder()
        let (old, new) = (folder.file("old.webarc"), folder.file("new.webarc"))
        _ = try SearchIndexTests.write(Self.release1, to: old)
        _ = try SearchIndexTests.write(Self.release2, to: new)
        let posting = try #require(try IndexView(try ArchiveReader(path: old))?.shard(0).postingPages.first)
        var bytes = try Self.bytes(old)
        bytes[Int(posting.offset) + 5] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: old))
        let summary = try Self.update(old, to: new, in: folder)
        #expect(summary.searchRebuilt)
        #expect(summary.searchDocumentsReused == 0)
    }

    /// A diff takes the documents of the pages its update carries from the new archive's own
    /// index; from a copy of that archive with a damaged posting page it analyses them instead
    /// (rebuilt), and both updates are the same bytes.
    @Test(arguments: [UInt64(2), 3, 4])
    func aDiffTakesTheNewArchivesDocuments(version: UInt64) throws {
        Self.register()
        let folder = try TemporaryFolder()
        let (old, new, damaged) = (folder.file("old.webarc"), folder.file("new.webarc"), folder.file("damaged.webarc"))
        _ = try SearchIndexTests.write(Self.release1, to: old, version: version)
        _ = try SearchIndexTests.write(Self.release2, to: new, version: version)
        let posting = try #require(try IndexView(try ArchiveReader(path: new))?.shard(0).postingPages.first)
        var bytes = try Self.bytes(new)
        bytes[Int(posting.offset) + 5] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: damaged))

        let bases = try LayerStack([try ArchiveReader(path: old)])
        let (taken, rebuilt) = (folder.file("taken.webarc"), folder.file("rebuilt.webarc"))
        let summary = try UpdateBuilder(old: bases, new: try ArchiveReader(path: new)).write(to: taken)
        let fallback = try UpdateBuilder(old: bases, new: try ArchiveReader(path: damaged)).write(to: rebuilt)
        let update = try ArchiveReader(path: taken)
        // The changed, renamed, added and folder pages: every document of the update's index.
        #expect(try IndexView(update)?.documentCount == 4)
        #expect(summary.searchDocumentsReused == 4)
        #expect(!summary.searchRebuilt)
        #expect(fallback.searchRebuilt)
        #expect(fallback.searchDocumentsReused == 0)
        #expect(try Self.bytes(taken) == Self.bytes(rebuilt))
        let stack = try LayerStack([update, try ArchiveReader(path: old)])
        #expect(try stack.search("kingfishers").map(\.url) == ["http://docs.test/added.html"])
        _ = try Self.update(old, to: new, in: folder)
    }

    /// A base whose shards have streams of several pages (600 pages sharing 640 words): its terms
    /// are read a page at a time, across page ends, and the apply still gives the new release
    /// byte for byte, every unchanged document taken.
    @Test(arguments: [UInt64(1), 2, 3, 4])
    func streamsOfSeveralPagesAreReadAcrossTheirPageEnds(version: UInt64) throws {
        Self.register()
        let folder = try TemporaryFolder()
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        let shared = (0..<640).map { (number: Int) -> String in
            String(["z", letters[number / 26 / 26], letters[number / 26 % 26], letters[number % 26]])
        }
        // Each page has most of the words, some twice: lists that block-code to a few bits a posting.
        let has = { (page: Int, word: Int) in (page * 7 + word * 13) % 5 != 0 }
        let release1 = (0..<600).map { page in
            let words = shared.indices.filter { has(page, $0) }.map {
                $0 % 3 == page % 3 ? shared[$0] + " " + shared[$0] : shared[$0]
            }
            return (
                path: "w/\(page).html", html: "<title>Page \(page)</title><p>" + words.joined(separator: " ") + "</p>"
            )
        }
        var release2 = release1
        release2[300].html = "<title>Page 300</title><p>herons wading</p>"
        let (old, new) = (folder.file("old.webarc"), folder.file("new.webarc"))
        _ = try SearchIndexTests.write(release1, to: old, version: version)
        _ = try SearchIndexTests.write(release2, to: new, version: version)
        let view = try #require(try IndexView(try ArchiveReader(path: old)))
        let streamPages = try (0..<view.root.termShards.count).map {
            let shard = try view.shard($0)
            return max(shard.postingPages.count, shard.positionPages.count)
        }
        #expect(streamPages.max() ?? 0 > 1)
        let summary = try Self.update(old, to: new, in: folder)
        #expect(summary.searchDocumentsReused == 599)
        #expect(!summary.searchRebuilt)
        let applied = try ArchiveReader(path: folder.file("applied.webarc"))
        let both = (0..<600).filter { $0 != 300 && has($0, 0) && has($0, 28) }
        #expect(try applied.search("zaaa zabc", limit: 1000).count == both.count)
    }
}

/// A version 2 index whose every document has the word `zebra` too.
private final class SkewedBuilder: SearchIndexContributor {
    let builder = SearchIndexBuilder()
    var version: UInt64 { builder.version }
    func wants(_ response: IndexableResponse) -> Bool { builder.wants(response) }
    func analyze(_ response: IndexableResponse, body: [UInt8]) -> any Sendable {
        builder.analyze(response, body: body + Array("<p>zebra</p>".utf8))
    }
    func add(_ analysis: any Sendable) throws { try builder.add(analysis) }
    func writePages(_ store: ([UInt8]) throws -> SearchPageAddress) throws -> [UInt8] {
        try builder.writePages(store)
    }
}
