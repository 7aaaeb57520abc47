import Foundation
import Testing
import WebArc
import WebArcSearch
import WebArcTestSupport

@testable import WebArcRemote

/// Search over HTTP ranges: an archive with an index, read through the remote reader, answers as
/// the local file does, reading its index pages and the hits' bodies, not the archive.
@Suite("Search over HTTP ranges")
struct RemoteSearchTests {
    /// Pages about a harbour town, one a ferry timetable, and a large incompressible download
    /// that a search must never fetch.
    static func archive(at path: String) throws {
        var options = ArchiveWriter.Options()
        options.searchIndex = { SearchIndexBuilder() }
        let writer = try ArchiveWriter(path: path, options: options)
        for number in 0..<40 {
            let topic = number == 7 ? "Ferry timetable" : "Harbour notes \(number)"
            let text =
                number == 7
                ? "The harbour ferry leaves every hour; the last ferry sails at midnight."
                : "Fishing boats and gulls by the harbour wall, page \(number)."
            let html = "<html><head><title>\(topic)</title></head><body><p>\(text)</p></body></html>"
            let body = try writer.addBody(Array(html.utf8))
            try writer.add(
                ResponseRecord(
                    request: RequestRecord(url: "http://town.test/page-\(number).html"), mimeType: "text/html",
                    textEncoding: "utf-8", body: body))
        }
        var random = SeededGenerator(seed: 38)
        let download = try writer.addBody(random.bytes(4 << 20))
        try writer.add(
            ResponseRecord(
                request: RequestRecord(url: "http://town.test/map.bin"), mimeType: "application/octet-stream",
                body: download))
        try writer.finish()
    }

    @Test("a query, a phrase and suggestions answer as the local file does, without the large body")
    func answersAsLocal() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("town.webarc")
        try Self.archive(at: path)
        let file = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let server = try RangeServer(file: file)
        defer { server.stop() }
        let local = try ArchiveReader(path: path)
        let remote = try ArchiveReader(url: server.url, configuration: testConfiguration())
        server.resetLog()

        let hits = try remote.search("harbour ferry")
        #expect(hits.map(\.url) == ["http://town.test/page-7.html"])
        #expect(hits == (try local.search("harbour ferry")))
        #expect(hits.first?.snippet.contains("last ferry sails") == true)
        #expect(try remote.search("\"ferry leaves\"").map(\.url) == ["http://town.test/page-7.html"])
        #expect(try remote.search("\"leaves ferry\"").isEmpty)
        #expect(try remote.search("harbour", limit: 50).count == 40)
        #expect(try remote.suggest("ferry").map(\.url) == ["http://town.test/page-7.html"])

        // Every read was a range of the file, and together far less than the 4 MiB download.
        let requests = server.requests
        #expect(!requests.isEmpty && requests.allSatisfy { $0.range?.hasPrefix("bytes=") == true })
        let transferred = server.state.withLock { $0.sent }
        #expect(transferred < 1 << 20, "\(transferred) bytes for \(requests.count) requests")
    }
}
