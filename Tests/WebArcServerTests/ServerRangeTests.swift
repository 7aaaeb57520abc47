import Foundation
import Testing
import WebArc
import WebArcServer
import WebArcTestSupport

/// Real HTTP over 127.0.0.1: `Range`, `If-Range`, `If-None-Match`, `If-Modified-Since`.
@Suite struct ServerRangeTests {
    /// Ranges on a body cached in memory (small.txt), cached in a memory file (big.bin, 8 MiB
    /// cache) and streamed (big.bin, 1 MiB cache) must agree with slicing.
    @Test(arguments: [("/small.txt", 1 << 20), ("/big.bin", 8 << 20), ("/big.bin", 1 << 20)])
    func firstMiddleSuffixAndOpenRanges(target: String, cacheBytes: Int) async throws {
        let folder = try TemporaryFolder()
        let body = target == "/big.bin" ? SiteFixture.big : SiteFixture.small
        let length = body.count
        try await withServer([try SiteFixture.make(in: folder)], cacheBytes: cacheBytes) { server in
            let client = try RawHTTPClient(port: server.port)
            let cases: [(String, Range<Int>)] = [
                ("bytes=0-9", 0..<10),
                ("bytes=100-199", 100..<200),
                ("bytes=-50", length - 50..<length),
                ("bytes=\(length - 7)-", length - 7..<length),
                ("bytes=10-99999999999", 10..<length),
                ("bytes=-99999999", 0..<length),
                ("bytes=\(length - 1)-\(length - 1)", length - 1..<length),
            ]
            for (header, expected) in cases {
                let response = try client.request("GET", target, headers: ["Range: \(header)"])
                #expect(response.status == 206, "\(header)")
                #expect(response.body == Array(body[expected]), "\(header)")
                #expect(
                    response.header("Content-Range")
                        == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/\(length)")
                #expect(response.header("Content-Length") == String(expected.count))
            }
            let acrossChunks = try client.request("GET", target, headers: ["Range: bytes=262000-262299"])
            if length > 262_300 { #expect(acrossChunks.body == Array(body[262_000..<262_300])) }
        }
    }

    @Test func unsatisfiableAndIgnoredRanges() async throws {
        let folder = try TemporaryFolder()
        try await withServer([try SiteFixture.make(in: folder)]) { server in
            let client = try RawHTTPClient(port: server.port)
            for header in ["bytes=1000-", "bytes=5000-6000", "bytes=-0"] {
                let response = try client.request("GET", "/small.txt", headers: ["Range: \(header)"])
                #expect(response.status == 416, "\(header)")
                #expect(response.header("Content-Range") == "bytes */1000")
            }
            for header in ["bytes=0-1,5-6", "items=0-5", "bytes=9-2", "bytes=abc", "bytes=--5"] {
                let response = try client.request("GET", "/small.txt", headers: ["Range: \(header)"])
                #expect(response.status == 200, "\(header)")
                #expect(response.body == SiteFixture.small)
            }
            let empty = try client.request("GET", "/empty.txt", headers: ["Range: bytes=0-"])
            #expect(empty.status == 416)
            let head = try client.request("HEAD", "/small.txt", headers: ["Range: bytes=0-9"])
            #expect(head.status == 206)
            #expect(head.header("Content-Length") == "10")
        }
    }

    @Test func ifRangeHonoursOnlyTheCurrentValidator() async throws {
        let folder = try TemporaryFolder()
        let reader = try SiteFixture.make(in: folder)
        let etag = try SiteFixture.etag("http://localhost/headers.html", in: reader)
        try await withServer([reader]) { server in
            let client = try RawHTTPClient(port: server.port)
            let matching = try client.request(
                "GET", "/headers.html", headers: ["Range: bytes=0-2", "If-Range: \(etag)"])
            #expect(matching.status == 206)
            #expect(matching.text == "<p>")
            let stale = try client.request(
                "GET", "/headers.html", headers: ["Range: bytes=0-2", "If-Range: \"other\""])
            #expect(stale.status == 200)
            let date = try client.request(
                "GET", "/headers.html", headers: ["Range: bytes=0-2", "If-Range: \(SiteFixture.lastModified)"])
            #expect(date.status == 206)
        }
    }

    @Test func conditionalsGive304() async throws {
        let folder = try TemporaryFolder()
        let reader = try SiteFixture.make(in: folder)
        let etag = try SiteFixture.etag("http://localhost/headers.html", in: reader)
        try await withServer([reader]) { server in
            let client = try RawHTTPClient(port: server.port)
            let cases: [([String], Int)] = [
                (["If-None-Match: \(etag)"], 304),
                (["If-None-Match: W/\(etag)"], 304),
                (["If-None-Match: \"a\", \(etag)"], 304),
                (["If-None-Match: *"], 304),
                (["If-None-Match: \"other\""], 200),
                (["If-Modified-Since: \(SiteFixture.lastModified)"], 304),
                (["If-Modified-Since: Wed, 02 Oct 2024 10:00:00 GMT"], 304),
                (["If-Modified-Since: Mon, 30 Sep 2024 10:00:00 GMT"], 200),
                (["If-Modified-Since: not a date"], 200),
                (["If-None-Match: \"other\"", "If-Modified-Since: \(SiteFixture.lastModified)"], 200),
            ]
            for (headers, status) in cases {
                let response = try client.request("GET", "/headers.html", headers: headers)
                #expect(response.status == status, "\(headers)")
                if status == 304 {
                    #expect(response.header("ETag") == etag)
                    #expect(response.header("Cache-Control") == "max-age=60")
                    #expect(response.header("Content-Length") == nil)
                }
            }
            let head = try client.request("HEAD", "/headers.html", headers: ["If-None-Match: \(etag)"])
            #expect(head.status == 304)
            #expect(try client.request("GET", "/small.txt").status == 200)
        }
    }
}
