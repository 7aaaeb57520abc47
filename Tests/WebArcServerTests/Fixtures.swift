import Foundation
import WebArc
import WebArcTestSupport

/// The test site: one origin (`http://localhost`), the shapes `pack` makes plus crawled oddities.
///
/// Recipe: every record below, written with `ArchiveWriter`; bodies are deterministic.
enum SiteFixture {
    static let indexHTML =
        "<!DOCTYPE html><title>Home</title><link rel=stylesheet href=style.css><a href=docs/>Docs</a>"
    static let css = "body { background: url(img/bg.png) }"
    /// 300 000 pseudo-random bytes: more than the test cache keeps, so it streams in two chunks.
    static let big: [UInt8] = {
        var state: UInt64 = 42
        return (0..<300_000).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }()
    /// 1000 bytes of digits, small enough for the cache.
    static let small: [UInt8] = Array((0..<1000).map { String($0 % 10) }.joined().utf8)
    static let lastModified = "Tue, 01 Oct 2024 10:00:00 GMT"

    static let records: [TestRecord] = [
        .text("http://localhost/", indexHTML),
        .text("http://localhost/index.html", indexHTML),
        .text("http://localhost/style.css", css, type: "text/css"),
        .text("http://localhost/docs/", "<p>docs</p>"),
        .redirect("http://localhost/docs", to: "http://localhost/docs/"),
        .redirect("http://localhost/moved", to: "https://elsewhere.example/page", status: 302),
        .page("http://localhost/big.bin", big, headers: [HTTPHeader("Content-Type", "application/octet-stream")]),
        .page("http://localhost/small.txt", small, headers: [HTTPHeader("Content-Type", "text/plain")]),
        .page("http://localhost/fonts/face.woff", Array("wOFF".utf8)),
        .page("http://localhost/typed", Array("{}".utf8), mimeType: "application/json"),
        .page("http://localhost/unknown", Array("??".utf8)),
        .page("http://localhost/empty.txt", [], headers: [HTTPHeader("Content-Type", "text/plain")]),
        .page(
            "http://localhost/headers.html", Array("<p>stored headers</p>".utf8),
            headers: [
                HTTPHeader("Content-Type", "text/html; charset=iso-8859-1"),
                HTTPHeader("Connection", "keep-alive, X-Hop"),
                HTTPHeader("X-Hop", "dropped because Connection names it"),
                HTTPHeader("Keep-Alive", "timeout=5"),
                HTTPHeader("Transfer-Encoding", "chunked"),
                HTTPHeader("Content-Length", "999"),
                HTTPHeader("ETag", "\"upstream\""),
                HTTPHeader("Last-Modified", lastModified),
                HTTPHeader("X-Custom", "kept"),
                HTTPHeader("Cache-Control", "max-age=60"),
            ]),
        .page(
            "http://localhost/gone", Array("stored 404".utf8), headers: [HTTPHeader("Content-Type", "text/plain")],
            status: 404),
    ]

    /// The fixture archive, opened.
    static func make(in folder: TemporaryFolder) throws -> ArchiveReader {
        try makeArchive(in: folder, records, startURL: "http://localhost/")
    }

    /// The `ETag` of the body stored for `url` (its MD5, quoted).
    static func etag(_ url: String, in reader: ArchiveReader) throws -> String {
        guard case .response(let response)? = try reader.lookup(url: url)?.record else { return "" }
        return response.body.etag
    }
}
