import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcURLProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class ConditionalReplay: ArchiveURLProtocol {}

@Suite("HEAD, ranges and conditionals", .serialized, .timeLimit(.minutes(10)))
struct ReplayPlanTests {
    static let body = SeededGenerator.packedBytes(600_000, seed: 7)
    static let lastModified = "Sun, 06 Nov 1994 08:49:37 GMT"
    let folder: TemporaryFolder
    let etag: String

    init() throws {
        folder = try TemporaryFolder()
        var archive = ArchiveBuilder()
        archive.response(
            "https://files.test/data.bin",
            headers: [
                HTTPHeader("Content-Type", "application/octet-stream"), HTTPHeader("Last-Modified", Self.lastModified),
            ],
            body: Self.body)
        archive.response("https://files.test/origin-tag", headers: [HTTPHeader("ETag", "\"v7\"")], text: "tagged")
        archive.response(
            "https://files.test/dated", body: Array("dated".utf8),
            captureDate: Date(timeIntervalSince1970: 1_000_000_000))
        let reader = try archive.build(in: folder)
        guard case .response(let record)? = try reader.lookup(url: "https://files.test/data.bin")?.record else {
            throw WebArcError.writerClosed
        }
        etag = record.body.etag
        ConditionalReplay.serve(reader, onMiss: .offline)
    }

    private func fetch(
        _ path: String, method: String = "GET", headers: [String: String] = [:], api: LoadingAPI = .async
    ) async -> Fetched {
        var request = URLRequest(url: URL(string: "https://files.test/\(path)")!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return await api.fetch(request, through: ConditionalReplay.self)
    }

    @Test("HEAD gets the GET headers and full length, and no body", arguments: LoadingAPI.allCases)
    func head(api: LoadingAPI) async throws {
        let fetched = await fetch("data.bin", method: "HEAD", api: api)
        #expect(fetched.status == 200)
        #expect(fetched.data?.isEmpty ?? true)
        #expect(fetched.response?.value(forHTTPHeaderField: "Content-Length") == "600000")
        #expect(fetched.response?.value(forHTTPHeaderField: "Last-Modified") == Self.lastModified)
    }

    @Test(
        "a range gets 206 with Content-Range and exactly those bytes",
        arguments: [
            ("bytes=0-99", 0..<100), ("bytes=262100-262199", 262_100..<262_200), ("bytes=599990-", 599_990..<600_000),
            ("bytes=-10", 599_990..<600_000), ("bytes=100-9999999", 100..<600_000),
        ])
    func range(header: String, expected: Range<Int>) async throws {
        for api in LoadingAPI.allCases {
            let fetched = await fetch("data.bin", headers: ["Range": header], api: api)
            #expect(fetched.status == 206)
            #expect(fetched.data == Data(Self.body[expected]))
            #expect(
                fetched.response?.value(forHTTPHeaderField: "Content-Range")
                    == "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/600000")
            #expect(fetched.response?.value(forHTTPHeaderField: "Content-Length") == String(expected.count))
        }
    }

    @Test("a range past the end gets 416 with bytes */length")
    func unsatisfiable() async throws {
        let fetched = await fetch("data.bin", headers: ["Range": "bytes=600000-"])
        #expect(fetched.status == 416)
        #expect(fetched.data?.isEmpty == true)
        #expect(fetched.response?.value(forHTTPHeaderField: "Content-Range") == "bytes */600000")
    }

    @Test("several ranges, or another unit, are ignored: 200 with the whole body")
    func ignoredRanges() async throws {
        for header in ["bytes=0-1,5-6", "items=0-1", "bytes=x-y"] {
            let fetched = await fetch("data.bin", headers: ["Range": header])
            #expect(fetched.status == 200)
            #expect(fetched.data?.count == 600_000)
        }
    }

    @Test("If-Range with another validator turns the range off")
    func ifRange() async throws {
        #expect(await fetch("data.bin", headers: ["Range": "bytes=0-9", "If-Range": etag]).status == 206)
        #expect(await fetch("data.bin", headers: ["Range": "bytes=0-9", "If-Range": "\"other\""]).status == 200)
        #expect(await fetch("data.bin", headers: ["Range": "bytes=0-9", "If-Range": Self.lastModified]).status == 206)
    }

    @Test("If-None-Match with the body MD5 gets 304 and no body", arguments: LoadingAPI.allCases)
    func ifNoneMatch(api: LoadingAPI) async throws {
        let fetched = await fetch("data.bin", headers: ["If-None-Match": "\"nope\", \(etag)"], api: api)
        #expect(fetched.status == 304)
        #expect(fetched.data?.isEmpty ?? true)
        #expect(fetched.response?.value(forHTTPHeaderField: "ETag") == etag)
        #expect(await fetch("data.bin", headers: ["If-None-Match": "\"nope\""]).status == 200)
        #expect(await fetch("data.bin", headers: ["If-None-Match": "*"]).status == 304)
        #expect(await fetch("data.bin", headers: ["If-None-Match": "W/\(etag)"]).status == 304)
    }

    @Test("a 200 carries the body MD5 as its ETag, and sending it back gets 304", arguments: LoadingAPI.allCases)
    func etagRoundTrip(api: LoadingAPI) async throws {
        let first = await fetch("data.bin", api: api)
        #expect(first.status == 200)
        #expect(first.response?.value(forHTTPHeaderField: "Accept-Ranges") == "bytes")
        let tag = try #require(first.response?.value(forHTTPHeaderField: "ETag"))
        #expect(tag == etag)
        let again = await fetch("data.bin", headers: ["If-None-Match": tag], api: api)
        #expect(again.status == 304)
        #expect(again.data?.isEmpty ?? true)
        let part = await fetch("data.bin", headers: ["Range": "bytes=0-9"], api: api)
        #expect(part.response?.value(forHTTPHeaderField: "ETag") == etag)
        #expect(await fetch("origin-tag", api: api).response?.value(forHTTPHeaderField: "ETag") == "\"v7\"")
    }

    @Test("If-None-Match also matches the ETag the origin sent")
    func originETag() async throws {
        #expect(await fetch("origin-tag", headers: ["If-None-Match": "\"v7\""]).status == 304)
    }

    @Test("If-Modified-Since compares with Last-Modified, else the capture date")
    func ifModifiedSince() async throws {
        #expect(await fetch("data.bin", headers: ["If-Modified-Since": Self.lastModified]).status == 304)
        #expect(await fetch("data.bin", headers: ["If-Modified-Since": "Sat, 05 Nov 1994 08:49:37 GMT"]).status == 200)
        #expect(await fetch("dated", headers: ["If-Modified-Since": "Sun, 09 Sep 2001 01:46:40 GMT"]).status == 304)
        #expect(await fetch("dated", headers: ["If-Modified-Since": "Sun, 09 Sep 2001 01:46:39 GMT"]).status == 200)
        #expect(await fetch("data.bin", headers: ["If-Modified-Since": "not a date"]).status == 200)
    }

    @Test("If-None-Match decides over If-Modified-Since")
    func precedence() async throws {
        let headers = ["If-None-Match": "\"nope\"", "If-Modified-Since": Self.lastModified]
        #expect(await fetch("data.bin", headers: headers).status == 200)
    }
}
