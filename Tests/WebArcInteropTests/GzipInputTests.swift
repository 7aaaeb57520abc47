import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcInterop

/// A gzip HAR or `.webarchive` is read like the plain file once decompressed, with a cap on what
/// it may expand to (`Spec/interop.md` §2.1).
@Suite("gzip HAR and .webarchive input")
struct GzipInputTests {
    static var page: [String: Any] {
        HARImportTests.entry("https://example.com/", content: ["size": 5, "mimeType": "text/plain", "text": "hello"])
    }

    @Test(
        "a gzip HAR imports as the plain one does, one member or several in a row; entries are located in the decompressed stream"
    )
    func members() throws {
        let folder = try TemporaryFolder()
        let har = try HARImportTests.har([Self.page])
        let plain = try folder.write("a.har", har)
        let one = try folder.write("a.har.gz", WARCFixture.gzip(har))
        let half = har.count / 2
        let two = try folder.write("b.har.gz", WARCFixture.gzipPerRecord([Array(har[..<half]), Array(har[half...])]))
        let expected = try importFiles([plain], in: folder, name: "plain.webarc").summary
        for input in [one, two] {
            let (summary, path) = try importFiles(
                [input], in: folder, name: "\((input as NSString).lastPathComponent).webarc")
            #expect(summary.inputs.map(\.format) == [.harGzip])
            #expect(summary.responses == expected.responses && summary.responses == 1)
            let reader = try ArchiveReader(path: path)
            let record = try #require(try reader.lookup(url: "https://example.com/"))
            guard case .response(let response) = record.record else {
                Issue.record("not a response")
                continue
            }
            #expect(Array(try reader.body(response.body)) == Array("hello".utf8))
            #expect(try reader.metadata.entries.contains { $0.key == "source" && $0.value.hasSuffix("(gzip HAR)") })
        }
        let bad = try folder.write(
            "bad.har.gz", WARCFixture.gzip(Array(#"{"log": {"version": "1.2", "entries": [{"request": {}}]}}"#.utf8)))
        #expect {
            try importFiles([bad], in: folder, name: "bad.webarc")
        } throws: { error in
            guard case .badHAREntry(let at, _)? = error as? InteropError else { return false }
            return at.offset == 0 && at.decompressedOffset != nil && at.item == "entry 0"
        }
    }

    @Test(
        "a gzip HAR that expands past the limit fails before more is inflated, with no output; a truncated or damaged one fails cleanly, even with --skip-bad"
    )
    func hostile() throws {
        let folder = try TemporaryFolder()
        // 4 MiB of spaces after the opening brace: a 4 KiB file.
        let bomb = try folder.write(
            "bomb.har.gz",
            WARCFixture.gzip(Array("{".utf8) + [UInt8](repeating: 0x20, count: 4 << 20) + Array("}".utf8)))
        var options = ImportOptions(skipBad: true)
        options.maxDecompressedBytes = 1 << 20
        #expect(throws: InteropError.decompressedTooLarge(file: bomb, limit: 1 << 20)) {
            try importFiles([bomb], in: folder, options: options)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("out.webarc")))
        #expect(
            InteropError.decompressedTooLarge(file: bomb, limit: 1 << 20).description
                == "\(bomb) decompresses to more than 1 MiB, the most a compressed HAR or .webarchive is read into memory: decompress it (gunzip -k) and import the result"
        )
        #expect(InteropError.decompressedTooLarge(file: bomb, limit: 1 << 20).category == .malformedData)

        let whole = WARCFixture.gzip(try HARImportTests.har([Self.page]))
        let truncated = try folder.write("cut.har.gz", Array(whole.dropLast(12)))
        #expect(throws: InteropError.truncatedGzip(at: InputLocation(file: truncated, offset: 0))) {
            try importFiles([truncated], in: folder, options: options)
        }
        var damaged = whole
        damaged[whole.count / 2] ^= 0xFF
        damaged[whole.count / 2 + 1] ^= 0xFF
        let broken = try folder.write("broken.har.gz", damaged)
        #expect {
            try importFiles([broken], in: folder, options: options)
        } throws: { error in
            guard let error = error as? InteropError else { return false }
            return error.code == "bad-gzip"
        }
        let trailing = try folder.write("trailing.har.gz", whole + Array("junk after the member".utf8))
        #expect {
            try importFiles([trailing], in: folder, options: options)
        } throws: { error in
            guard case .badGzip(let at, _)? = error as? InteropError else { return false }
            return at == InputLocation(file: trailing, offset: UInt64(whole.count))
        }
    }
}
