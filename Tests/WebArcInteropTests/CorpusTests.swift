import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcInterop

/// Every file of the shared corpus (`SOURCES.md`), file by file: it imports with the records its
/// content holds, or fails with the error its defect deserves.
// Skipped (shown as such) when the corpus is absent, so a passing run never hides untested files;
// under CI the suite runs anyway and fails on the first missing file.
@Suite("Corpus: real captures from other projects", .enabled(if: Corpus.available, Corpus.skipReason))
struct CorpusTests {
    /// What one corpus file must give.
    struct Expectation: CustomTestStringConvertible, Sendable {
        var file: String
        var format: InputFormat
        /// Records (WARC), entries (HAR) read.
        var records: Int
        var captures: Int
        /// Responses and redirects kept with `--keep latest`.
        var latest: (responses: Int, redirects: Int)
        /// Responses kept with `--keep all`.
        var allResponses: Int
        var distinctBodies: Int
        /// Notes by kind (``InteropNote/kind``).
        var notes: [String: Int] = [:]

        var testDescription: String { file }
    }

    static let expectations: [Expectation] = [
        Expectation(
            file: "pywb-iana.warc.gz", format: .warcGzip, records: 343, captures: 171, latest: (39, 4),
            allResponses: 167,
            distinctBodies: 29, notes: ["notChunked": 25]),
        Expectation(
            file: "pywb-dupes.warc.gz", format: .warcGzip, records: 25, captures: 4, latest: (2, 1), allResponses: 3,
            distinctBodies: 2, notes: ["unresolvedRevisit": 8]),
        Expectation(
            file: "pywb-example-wget-1-14.warc.gz", format: .warcGzip, records: 6, captures: 4, latest: (4, 0),
            allResponses: 4,
            distinctBodies: 4),
        Expectation(
            file: "pywb-example-wpull.warc.gz", format: .warcGzip, records: 4, captures: 2, latest: (2, 0),
            allResponses: 2,
            distinctBodies: 2),
        Expectation(
            file: "pywb-post-test.warc.gz", format: .warcGzip, records: 6, captures: 3, latest: (2, 0), allResponses: 3,
            distinctBodies: 3),
        Expectation(
            file: "warcio-example-iana.org-chunked.warc", format: .warc, records: 3, captures: 1, latest: (1, 0),
            allResponses: 1,
            distinctBodies: 1),
        Expectation(
            file: "warcio-example-space-in-target-uri.warc.gz", format: .warcGzip, records: 2, captures: 1,
            latest: (1, 0),
            allResponses: 1, distinctBodies: 1),
        Expectation(
            file: "harviewer-chrome51.har", format: .har, records: 27, captures: 13, latest: (9, 0), allResponses: 13,
            distinctBodies: 9, notes: ["bodyNotSaved": 14]),
        Expectation(
            file: "harviewer-www-cnn-com-fiddler.har", format: .har, records: 22, captures: 22, latest: (18, 4),
            allResponses: 18,
            distinctBodies: 18),
    ]

    @Test("imports with the records it holds", arguments: expectations)
    func imports(_ expected: Expectation) throws {
        let path = try Corpus.path(expected.file)
        let folder = try TemporaryFolder()
        let (latest, latestPath) = try importFiles([path], in: folder, name: "latest.webarc")
        #expect(latest.inputs.map(\.format) == [expected.format])
        #expect(latest.inputs.first?.records == expected.records)
        #expect(latest.inputs.first?.captures == expected.captures)
        #expect(latest.responses == expected.latest.responses)
        #expect(latest.redirects == expected.latest.redirects)
        #expect(latest.skipped.isEmpty)
        let kinds = Dictionary(grouping: latest.notes.map(\.kind), by: { $0 }).mapValues(\.count)
        #expect(kinds == expected.notes)
        let (all, allPath) = try importFiles([path], in: folder, name: "all.webarc", options: ImportOptions(keep: .all))
        #expect(all.responses == expected.allResponses)
        #expect(all.bodiesStored == expected.distinctBodies)
        for archive in [latestPath, allPath] {
            let report = ArchiveVerifier.verify(path: archive)
            #expect(report.passed, "\(archive): \(report.problems)")
        }
    }

    @Test("warcio-example-trunc.warc: a Content-Length 2 bytes short fails at the record's offset")
    func truncatedRecord() throws {
        let path = try Corpus.path("warcio-example-trunc.warc")
        let folder = try TemporaryFolder()
        #expect(
            throws: InteropError.contentLengthMismatch(
                at: InputLocation(file: path, offset: 1197), declared: 973, found: "00 00 0d 0a")
        ) {
            try importFiles([path], in: folder)
        }
        #expect(try folder.names().isEmpty, "nothing may be left at -o")
        let (summary, output) = try importFiles([path], in: folder, options: ImportOptions(skipBad: true))
        #expect(summary.skipped.map(\.code) == ["content-length-mismatch"])
        #expect(summary.records == 0)
        #expect(summary.notes.contains(.recordsLeftOut(file: path, type: "request (no response)", count: 1)))
        #expect(try ArchiveReader(path: output).metadata.entries.filter { $0.key == "warcinfo" }.count == 2)
    }

    @Test("warcio-example-wrong-chunks.warc.gz: a block longer than its Content-Length fails at offset 0")
    func wrongChunks() throws {
        let path = try Corpus.path("warcio-example-wrong-chunks.warc.gz")
        let folder = try TemporaryFolder()
        #expect(
            throws: InteropError.contentLengthMismatch(
                at: InputLocation(file: path, offset: 0), declared: 1613, found: "0a")
        ) {
            try importFiles([path], in: folder)
        }
        #expect(try folder.names().isEmpty)
        let (summary, _) = try importFiles([path], in: folder, options: ImportOptions(skipBad: true))
        #expect(summary.skipped.count == 1)
        #expect(summary.records == 0)
    }

    @Test("pywb-dupes.warc.gz with pywb-iana.warc.gz: every revisit resolves across files")
    func revisitsAcrossFiles() throws {
        let dupes = try Corpus.path("pywb-dupes.warc.gz")
        let iana = try Corpus.path("pywb-iana.warc.gz")
        let folder = try TemporaryFolder()
        let (summary, path) = try importFiles([dupes, iana], in: folder, options: ImportOptions(keep: .all))
        #expect(!summary.notes.contains { if case .unresolvedRevisit = $0 { true } else { false } })
        #expect(summary.responses + summary.redirects == 4 + 8 + 171)
        let dump = try ArchiveDump(path)
        let home = dump.items.filter { $0.key == "GET http://www.iana.org/" }
        #expect(Set(home.compactMap(\.body)).count == 1, "every capture of the home page has the original's payload")
    }

    @Test("pywb-iana.warc.gz: chunked and redirect records as a browser needs them")
    func ianaDetails() throws {
        let path = try Corpus.path("pywb-iana.warc.gz")
        let folder = try TemporaryFolder()
        let dump = try ArchiveDump(try importFiles([path], in: folder).path)
        for item in dump.items {
            #expect(item.headers.value(for: "Transfer-Encoding") == nil)
            if let body = item.body, let length = item.headers.value(for: "Content-Length") {
                #expect(length == String(body.count), "\(item.key)")
            }
        }
        #expect(dump.items.contains { $0.kind == "redirect" && $0.status == 302 })
        let home = try #require(dump["GET http://www.iana.org/"])
        #expect(String(decoding: home.body ?? [], as: UTF8.self).hasPrefix("<!doctype html>"))
    }

    @Test("warcio-example-iana.org-chunked.warc: the body is de-chunked")
    func dechunked() throws {
        let path = try Corpus.path("warcio-example-iana.org-chunked.warc")
        let folder = try TemporaryFolder()
        let item = try #require(try ArchiveDump(try importFiles([path], in: folder).path).items.first)
        let text = String(decoding: item.body ?? [], as: UTF8.self)
        #expect(text.hasPrefix("<!doctype html>"))
        #expect(text.hasSuffix("</html>\n"))
        #expect(item.headers.value(for: "Transfer-Encoding") == nil)
    }

    @Test("warcio-example-space-in-target-uri.warc.gz: a file: URL with spaces is kept and found escaped")
    func spaceInTargetURI() throws {
        let path = try Corpus.path("warcio-example-space-in-target-uri.warc.gz")
        let folder = try TemporaryFolder()
        let reader = try ArchiveReader(path: try importFiles([path], in: folder).path)
        let entry = try #require(try reader.lookup(url: "file:///example%20with%20spaces.png"))
        #expect(entry.record.request.url == "file:///example with spaces.png")
        #expect(entry.record.headers.value(for: "Content-Type") == "image/png")
    }

    @Test("pywb-post-test.warc.gz: POST requests keep their method; the latest of equal keys wins")
    func postRequests() throws {
        let path = try Corpus.path("pywb-post-test.warc.gz")
        let folder = try TemporaryFolder()
        let dump = try ArchiveDump(try importFiles([path], in: folder).path)
        #expect(dump.items.map(\.key) == ["POST http://httpbin.org/post", "POST http://httpbin.org/post?foo=bar"])
        #expect(dump.items.allSatisfy { $0.requestHeaders.value(for: "Content-Type") != nil })
    }

    @Test("harviewer-www-cnn-com-fiddler.har: the BOM is accepted, 302s become redirects")
    func fiddlerHAR() throws {
        let path = try Corpus.path("harviewer-www-cnn-com-fiddler.har")
        let folder = try TemporaryFolder()
        let dump = try ArchiveDump(try importFiles([path], in: folder).path)
        let first = try #require(dump["GET http://www.cnn.com/"])
        #expect(first.kind == "redirect")
        #expect(first.target == "http://m.cnn.com")
        let page = try #require(dump["GET http://m.cnn.com/"])
        #expect(page.headers.value(for: "Content-Encoding") == nil, "HAR text is already decoded")
        #expect(page.headers.value(for: "Content-Length") == String(page.body?.count ?? -1))
    }

    @Test("harviewer-chrome51.har: unsaved bodies are reported with their entry and offset")
    func chromeHAR() throws {
        let path = try Corpus.path("harviewer-chrome51.har")
        let folder = try TemporaryFolder()
        let (summary, _) = try importFiles([path], in: folder)
        let first = try #require(summary.notes.first)
        guard case .bodyNotSaved(let at, let url) = first else {
            Issue.record("expected bodyNotSaved, got \(first)")
            return
        }
        #expect(url == "http://gitgrimbo.github.io/harviewer/issue-62/")
        #expect(at.item == "entry 0")
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        let offset = Int(try #require(at.offset))
        #expect(bytes[offset] == UInt8(ascii: "{"), "the offset points at the entry's opening brace")
    }
}
