import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcServer

/// How a set finds its archives' origins by skipping through the record tree, and picks the one
/// served at `/`.
@Suite struct ArchiveSetOriginsTests {
    /// Origins whose keys interleave by bytes: `host.com` and `host:8000` sort on either side of
    /// `host/`, and a second method repeats them after every GET key.
    static let urls = [
        "http://host/a", "http://host.com/b", "http://host:8000/c", "https://host/d", "http://host/z",
        "http://host.com/", "https://cdn.example/x.css", "http://host?q=1",
    ]

    /// Every origin in first-met key order, found by reading every record.
    static func walkedOrigins(_ reader: ArchiveReader) throws -> [Origin] {
        var origins: [Origin] = []
        try reader.forEachEntry { entry in
            if let origin = Origin(url: entry.key.drop { $0 != " " }.dropFirst()), !origins.contains(origin) {
                origins.append(origin)
            }
        }
        return origins
    }

    /// Writes `urls` as GET pages, the first `headCount` also as HEAD, and `bulk` more pages of
    /// `http://host/` so that its keys fill several leaves.
    func archive(
        in folder: TemporaryFolder, bulk: Int, headCount: Int = 3, startURL: String? = nil
    ) throws
        -> ArchiveReader
    {
        let path = folder.file("origins.webarc")
        let writer = try ArchiveWriter(path: path)
        writer.metadata = ArchiveMetadata(startURL: startURL)
        let body = try writer.addBody(Array(repeating: UInt8(ascii: "x"), count: 600))
        for url in Self.urls + (0..<bulk).map({ "http://host/page/\($0)" }) {
            try writer.add(ResponseRecord(request: RequestRecord(url: url), status: 200, body: body))
        }
        for url in Self.urls.prefix(headCount) {
            try writer.add(ResponseRecord(request: RequestRecord(method: "HEAD", url: url), status: 200, body: body))
        }
        try writer.add(TombstoneRecord(request: RequestRecord(url: "http://gone.example/")))
        try writer.finish()
        return try ArchiveReader(path: path)
    }

    @Test("the skip finds every origin, in the order a walk over every record meets them")
    func originsAsWalked() throws {
        let folder = try TemporaryFolder()
        let reader = try archive(in: folder, bulk: 20_000)
        let set = try ArchiveSet(readers: [reader])
        #expect(set.originMap.origins == (try Self.walkedOrigins(reader)))
        #expect(
            set.originMap.origins.map(\.url) == [
                "http://gone.example", "http://host.com", "http://host", "http://host:8000", "https://cdn.example",
                "https://host",
            ])
    }

    @Test("without a start page, the origin with the most records is served at /")
    func busiestWithoutStart() throws {
        let folder = try TemporaryFolder()
        let set = try ArchiveSet(readers: [try archive(in: folder, bulk: 5)])
        #expect(set.originMap.primary == Origin(scheme: "http", authority: "host"))
        #expect(set.startURL == "http://host/")
    }

    @Test("a start page names the primary origin when the archive holds it, whatever the counts")
    func startPageWins() throws {
        let folder = try TemporaryFolder()
        let set = try ArchiveSet(readers: [try archive(in: folder, bulk: 5, startURL: "https://cdn.example/x.css")])
        #expect(set.originMap.primary == Origin(scheme: "https", authority: "cdn.example"))
        #expect(set.startURL == "https://cdn.example/x.css")
    }

    @Test("an empty archive has no origins and no primary")
    func emptyArchive() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("empty.webarc")
        let writer = try ArchiveWriter(path: path)
        try writer.finish()
        let set = try ArchiveSet(readers: [try ArchiveReader(path: path)])
        #expect(set.originMap.origins.isEmpty)
        #expect(set.originMap.primary == nil)
        #expect(set.startURL == nil)
    }
}
