import Foundation
import Testing
import WebArc

@testable import WebArcInterop

@Suite("ContentCoding: the Content-Encoding decision")
struct ContentCodingTests {
    static let text = Array(String(repeating: "decode me ", count: 1000).utf8)

    static func decode(
        _ body: [UInt8], _ codings: [String], wire: Bool = true
    ) throws -> (bytes: [UInt8], remaining: [String], failure: String?) {
        let outcome = try ContentCoding.decode(try BodySpool(body), codings: codings, wire: wire)
        return (try outcome.body.bytes(), outcome.remaining, outcome.failure)
    }

    @Test("gzip (one or two members), zlib deflate and raw deflate decode to the same bytes")
    func decodable() throws {
        let gzip = WARCFixture.gzip(Self.text)
        #expect(try Self.decode(gzip, ["gzip"]).bytes == Self.text)
        #expect(try Self.decode(gzip, ["x-gzip"]).bytes == Self.text)
        let half = Self.text.count / 2
        let twoMembers = WARCFixture.gzipPerRecord([Array(Self.text[..<half]), Array(Self.text[half...])])
        #expect(try Self.decode(twoMembers, ["gzip"]).bytes == Self.text)
        // gzip = 10-byte header, raw deflate, CRC-32 and size; zlib = 2-byte header, raw deflate, Adler-32.
        let raw = Array(gzip[10..<(gzip.count - 8)])
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in Self.text {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        let adler = b << 16 | a
        let zlib = [0x78, 0x9C] + raw + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: adler >> $0) }
        #expect(try Self.decode(zlib, ["deflate"]).bytes == Self.text, "HTTP deflate: zlib-wrapped")
        #expect(try Self.decode(raw, ["deflate"]).bytes == Self.text, "raw deflate, as some servers send")
        #expect(try Self.decode(gzip, ["identity", "gzip"]).remaining == [])
    }

    @Test("br and unknown codings stay encoded from the wire; a browser's bodies lose the header")
    func kept() throws {
        #expect(try Self.decode([1, 2, 3], ["br"]).remaining == ["br"])
        #expect(
            try Self.decode(WARCFixture.gzip(Self.text), ["gzip", "br"]).remaining == ["gzip", "br"],
            "decoding stops at br")
        let browser = try Self.decode(Array("plain".utf8), ["br"], wire: false)
        #expect(browser.bytes == Array("plain".utf8))
        #expect(browser.remaining == [])
        #expect(
            try Self.decode(WARCFixture.gzip(Self.text), ["gzip"], wire: false).bytes == Self.text,
            "still gzip: decoded")
    }

    @Test("a damaged or truncated body is kept as sent, with the reason")
    func failures() throws {
        let gzip = WARCFixture.gzip(Self.text)
        let cut = try Self.decode(Array(gzip.prefix(gzip.count / 2)), ["gzip"])
        #expect(cut.bytes == Array(gzip.prefix(gzip.count / 2)))
        #expect(cut.remaining == ["gzip"])
        #expect(cut.failure == "the compressed body ends early")
        #expect(try Self.decode([], ["gzip"]).remaining == [], "an empty body has nothing to decode")
    }

    @Test("headers describe the stored body")
    func headers() {
        let headers = [
            HTTPHeader("Content-Encoding", "gzip"), HTTPHeader("Transfer-Encoding", "chunked"),
            HTTPHeader("Content-Length", "-1"),
            HTTPHeader("content-length", "7"), HTTPHeader("ETag", "\"e\""),
        ]
        #expect(
            ContentCoding.headers(headers, remaining: [], length: 10) == [
                HTTPHeader("Content-Length", "10"), HTTPHeader("ETag", "\"e\""),
            ])
        #expect(
            ContentCoding.headers(headers, remaining: ["br"], length: 3)
                == [
                    HTTPHeader("Content-Encoding", "br"), HTTPHeader("Content-Length", "3"),
                    HTTPHeader("ETag", "\"e\""),
                ])
    }
}
