import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// The writer stores `Archive.totals` (spec §7.3 `Totals`): what a walk of both trees counts,
/// checked by `verify`, written again by apply exactly when the target has them.
@Suite struct ArchiveTotalsTests {
    /// Writes responses (one body twice), a redirect and, over `bases`, a tombstone and a copy of
    /// a base body, on two origins.
    func write(
        _ path: String, bases: [ArchiveReader] = [], totals: Bool = true, page: String = "<p>one</p>"
    ) throws {
        var options = ArchiveWriter.Options(overwrite: true)
        options.writesTotals = totals
        let writer = try ArchiveWriter(path: path, options: options, bases: bases)
        let home = try writer.addBody(Array(page.utf8))
        let style = try writer.addBody(Array("body { color: red }".utf8))
        let big = try writer.addBody(Array(repeating: UInt8(ascii: "x"), count: 600_000))
        for (url, body) in [
            ("https://example.org/", home), ("https://example.org/index.html", home),
            ("https://example.org/style.css", style), ("https://cdn.example.net/big.txt", big),
        ] {
            try writer.add(ResponseRecord(request: RequestRecord(url: url), body: body))
        }
        try writer.add(
            RedirectRecord(
                request: RequestRecord(url: "https://example.org/old"), status: 301,
                target: "https://example.org/"))
        if !bases.isEmpty {
            try writer.add(TombstoneRecord(request: RequestRecord(url: "https://example.org/gone")))
        }
        try writer.finish()
    }

    /// What a walk of the trees counts.
    func walked(_ reader: ArchiveReader) throws -> ArchiveTotals {
        var counter = ArchiveTotals.Counter()
        let layered = try !reader.metadata.bases.isEmpty
        try reader.forEachEntry { entry in
            var inBases = false
            if case .response(let response) = entry.record {
                inBases = try reader.bodyEntry(response.body).chunks.allSatisfy { $0.layer > 0 }
            }
            counter.add(entry.record, key: entry.key, bodyInBases: inBases)
        }
        try reader.forEachBody { counter.add(body: $0) }
        return counter.totals(layered: layered)
    }

    @Test("a writer stores the totals a walk counts: records by class, body bytes, distinct bodies, chunks, origins")
    func writerStoresWalkedTotals() throws {
        let scratch = try TemporaryFolder()
        try write(scratch.file("a.webarc"))
        let reader = try ArchiveReader(path: scratch.file("a.webarc"))
        let totals = try #require(try reader.metadata.totals)
        #expect(
            totals
                == ArchiveTotals(
                    responses: 4, redirects: 1, tombstones: 0, responseBytes: 10 + 10 + 19 + 600_000,
                    bodyBytes: 10 + 19 + 600_000, chunks: 1 + 1 + 3, originCount: 2,
                    origins: ["https://cdn.example.net", "https://example.org"]))
        #expect(try walked(reader) == totals)
        #expect(ArchiveVerifier.verify(reader).problems.isEmpty)
    }

    @Test("an update's totals count its own records and body entries, and the responses whose body its bases hold")
    func updateTotals() throws {
        let scratch = try TemporaryFolder()
        try write(scratch.file("base.webarc"))
        let base = try ArchiveReader(path: scratch.file("base.webarc"))
        try write(scratch.file("u.webarc"), bases: [base], page: "<p>two</p>")
        let update = try ArchiveReader(path: scratch.file("u.webarc"))
        let totals = try #require(try update.metadata.totals)
        // The new home page twice; the style sheet and the big file from the base.
        #expect(totals.responses == 4 && totals.tombstones == 1 && totals.baseBodyResponses == 2)
        #expect(totals.bodyBytes == 10 + 19 + 600_000 && totals.chunks == 5)
        #expect(try walked(update) == totals)
    }

    @Test(
        "verify reports stored totals that differ from the trees as bad-totals at the metadata page, naming the field")
    func verifyFindsWrongTotals() throws {
        let scratch = try TemporaryFolder()
        try write(scratch.file("a.webarc"))
        let reader = try ArchiveReader(path: scratch.file("a.webarc"))
        // The same archive, its metadata page (the last page) written again, raw, with totals that
        // say one chunk more, and the trailer naming it.
        var metadata = try reader.metadata
        metadata.totals?.chunks += 1
        let raw = MetadataPage.encode(object: RecordObjects.archive(metadata).encoded())
        let page = reader.trailer.metadata
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: scratch.file("a.webarc")))[..<Int(page.offset)])
        bytes += raw
        var trailer = reader.trailer
        trailer.metadata = PageReference(
            offset: page.offset, storedLength: UInt32(raw.count), rawLength: UInt32(raw.count), codec: .raw,
            height: 0, digest: SHA256Hash.of(raw))
        trailer.archiveLength = UInt64(bytes.count + Trailer.size)
        bytes += trailer.serialize()
        try Data(bytes).write(to: URL(fileURLWithPath: scratch.file("b.webarc")))
        let report = ArchiveVerifier.verify(path: scratch.file("b.webarc"))
        #expect(report.problems.map(\.code) == ["bad-totals"])
        #expect(report.problems.first?.offset == page.offset)
        #expect(report.problems.first?.message.contains("Totals.chunks") == true)
    }

    @Test("an update whose target was written without totals (before 2.2.2) applies byte for byte without them")
    func applyWithoutTotals() throws {
        let scratch = try TemporaryFolder()
        for totals in [false, true] {
            let old = scratch.file("v1-\(totals).webarc")
            let new = scratch.file("v2-\(totals).webarc")
            let update = scratch.file("u-\(totals).webarc")
            let applied = scratch.file("v2-applied-\(totals).webarc")
            try write(old, totals: totals)
            try write(new, totals: totals, page: "<p>two</p>")
            try UpdateBuilder(old: try LayerStack([try ArchiveReader(path: old)]), new: try ArchiveReader(path: new))
                .write(to: update)
            #expect(try (ArchiveReader(path: update).metadata.target?.archive.totals != nil) == totals)
            try UpdateApplier(stack: try LayerStack([try ArchiveReader(path: update), try ArchiveReader(path: old)]))
                .write(to: applied)
            #expect(try Data(contentsOf: URL(fileURLWithPath: applied)) == Data(contentsOf: URL(fileURLWithPath: new)))
        }
    }

    @Test("a key's origin: scheme and host of its URL, the same from a String, a Substring and non-ASCII keys")
    func originOfKey() {
        let cases: [(String, String?)] = [
            ("GET https://example.org/a/b?c", "https://example.org"),
            ("GET https://example.org", "https://example.org"),
            ("https://cdn.example.net:8443/x", "https://cdn.example.net:8443"),
            ("GET /relative/path", nil),
            ("GET http:/one-slash", nil),
            ("GET a://", "a://"),
            ("", nil),
            ("GET https://bücher.example/ä", "https://bücher.example"),
            ("GET  https://two-spaces.example/", " https://two-spaces.example"),
        ]
        for (key, origin) in cases {
            #expect(ArchiveTotals.origin(ofKey: key) == origin, "\(key)")
            #expect(ArchiveTotals.origin(ofKey: ("x" + key).dropFirst()) == origin, "\(key) as a Substring")
        }
        // A combining mark after `/` makes another Character: the non-ASCII path keeps that reading.
        #expect(ArchiveTotals.origin(ofKey: "GET https://host/\u{301}x/y") == "https://host/\u{301}x")
    }
}
