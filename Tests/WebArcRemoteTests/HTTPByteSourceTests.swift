import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcRemote

@Suite("Remote reads over HTTP ranges")
struct HTTPByteSourceTests {
    @Test("open is one round trip (the tail with the size, and the lead); a cold URL adds its leaf and its body")
    func requestCount() throws {
        let server = try RangeServer(file: Fixture.archive.bytes)
        defer { server.stop() }
        let source = try HTTPByteSource(url: server.url, configuration: testConfiguration())
        #expect(source.size == UInt64(Fixture.archive.bytes.count))
        let reader = try ArchiveReader(source: source, path: server.url)
        let opening = server.requests.map(\.range)
        #expect(opening.sorted { ($0 ?? "") < ($1 ?? "") } == ["bytes=-16384", "bytes=0-15"])
        #expect(try remoteBody(reader, Fixture.firstURL) == Fixture.body(Fixture.firstURL))
        // The leaf, then the body: two more requests.
        #expect(server.requests.count == 4)
        server.resetLog()
        // Three chunks of one body: one request.
        #expect(try remoteBody(reader, Fixture.bigURL) == Fixture.body(Fixture.bigURL))
        #expect(server.requests.count <= 2)
        let span = server.requests.last?.range.flatMap { range -> Int? in
            let bounds = range.dropFirst(6).split(separator: "-").compactMap { Int($0) }
            return bounds.count == 2 ? bounds[1] - bounds[0] + 1 : nil
        }
        #expect((span ?? 0) >= 700_000)
    }

    @Test(
        "a record root beyond the tail read comes in one more request at open; a cold URL still adds only its leaf and body"
    )
    func rootBeyondTail() throws {
        let server = try RangeServer(file: Fixture.archive.bytes)
        defer { server.stop() }
        var configuration = testConfiguration()
        configuration.tailLength = 300  // the trailer and a little: the metadata and the root lie before it
        let reader = try ArchiveReader(url: server.url, configuration: configuration)
        let size = Fixture.archive.bytes.count
        let root = Fixture.local.trailer.recordRoot
        #expect(root.offset < UInt64(size - 300))
        let opening = server.requests.compactMap(\.range)
        #expect(opening.count == 3 && opening.contains("bytes=-300") && opening.contains("bytes=0-15"))
        #expect(opening.contains("bytes=\(root.offset)-\(size - 301)"))
        server.resetLog()
        #expect(try remoteBody(reader, Fixture.firstURL) == Fixture.body(Fixture.firstURL))
        #expect(try reader.metadata == Fixture.local.metadata)
        #expect(server.requests.count == 2)
    }

    @Test("listing every record or body (ls, info) fetches the leaves in a few coalesced requests, not one per leaf")
    func coalescedLeaves() throws {
        let server = try RangeServer(file: Fixture.archive.bytes)
        defer { server.stop() }
        let local = ReadCounter(try FileByteSource(path: Fixture.archive.path))
        let localReader = try ArchiveReader(source: local, path: Fixture.archive.path)
        let reader = try ArchiveReader(url: server.url, configuration: testConfiguration())
        for list in [
            { (r: ArchiveReader) in try r.forEachEntry { _ in } }, { (r: ArchiveReader) in try r.forEachBody { _ in } },
        ] {
            local.reset()
            server.resetLog()
            try list(localReader)
            try list(reader)
            // The local reader reads each page on its own; the remote one asks for the leaves
            // together (after the root, when the root is not in the tail read at open).
            #expect(local.count >= 4)
            #expect(server.requests.count <= 2, "\(server.requests.map(\.range)) for \(local.count) leaves")
        }
    }

    @Test(
        "extents announced apart with ahead N are asked for N at a time before any read (one by default), and read back whole"
    )
    func readAheadDepth() throws {
        let file: [UInt8] = (0..<(2 << 20)).map { (index: Int) -> UInt8 in
            UInt8(truncatingIfNeeded: index &* 31 &+ index >> 11)
        }
        let server = try RangeServer(file: file)
        defer { server.stop() }
        // Ten extents 128 KiB apart: too far apart to share a request.
        let extents: [Range<UInt64>] = (0..<10).map { (index: Int) -> Range<UInt64> in
            let start = UInt64(index) * 131_072 + 4096
            return start..<start + 1000
        }
        let ranges = extents.map { "bytes=\($0.lowerBound)-\($0.upperBound - 1)" }
        // The extents' requests in the log, without the lead that opening sent (it may arrive late).
        func asked() -> [String] { server.requests.compactMap(\.range).filter { $0 != "bytes=0-15" } }
        for ahead in [1, 4] {
            let source = try HTTPByteSource(url: server.url, configuration: testConfiguration())
            server.resetLog()
            let before = source.statistics.requests
            source.willRead(extents, ahead: ahead)
            // Requests start inside willRead: its count is final when it returns.
            #expect(source.statistics.requests - before == ahead, "ahead \(ahead)")
            let first = Set(ranges.prefix(ahead))
            #expect(server.waitForRequests { _ in first.isSubset(of: asked()) }, "ahead \(ahead): \(asked())")
            #expect(asked().count == ahead, "ahead \(ahead): \(asked())")
            for extent in extents {
                let bytes = try source.read(at: extent.lowerBound, count: extent.count)
                #expect(bytes == Array(file[Int(extent.lowerBound)..<Int(extent.upperBound)]))
            }
            #expect(asked().sorted() == ranges.sorted(), "each extent asked for once")
        }
    }

    @Test("HTTP/2: range reads from a server that offers only h2 (ALPN) go over HTTP/2, several on one connection")
    func http2() throws {
        let server = try RangeServer(file: Fixture.archive.bytes, tls: true, http2: true)
        defer { server.stop() }
        let reader = try ArchiveReader(url: server.url, configuration: testConfiguration())
        #expect(try remoteBody(reader, Fixture.bigURL) == Fixture.body(Fixture.bigURL))
        #expect(try remoteBody(reader, Fixture.firstURL) == Fixture.body(Fixture.firstURL))
        try reader.forEachEntry { _ in }
        #expect(server.requests.count >= 5)
        #expect(server.requests.allSatisfy { $0.version == 2 }, "\(server.requests.map(\.version))")
        // `verify URL` streams over HTTP/1.1 on purpose (HTTP/2 flow control slows one long
        // transfer on a long round trip); the same TLS server with HTTP/1.1 serves it.
        let plain = try RangeServer(file: Fixture.archive.bytes, tls: true)
        defer { plain.stop() }
        #expect(try RemoteVerifier.verify(url: plain.url, configuration: testConfiguration()).report.passed)
        #expect(plain.requests.allSatisfy { $0.version == 1 })
    }

    @Test("every record and body reads as from the file")
    func everyRecord() throws {
        let server = try RangeServer(file: Fixture.archive.bytes)
        defer { server.stop() }
        let reader = try ArchiveReader(url: server.url, configuration: testConfiguration())
        var seen = 0
        try Fixture.local.forEachEntry { entry in
            guard case .response(let response) = entry.record, seen % 50 == 0 || response.request.url == Fixture.bigURL
            else {
                seen += 1
                return
            }
            seen += 1
            let remote = try reader.lookup(url: response.request.url)
            #expect(remote == entry)
            #expect(try reader.body(response.body) == Fixture.local.body(response.body))
            #expect(try reader.body(response.body, range: 10..<20) == Fixture.local.body(response.body, range: 10..<20))
        }
        #expect(try reader.metadata == Fixture.local.metadata)
        #expect(seen == Fixture.archive.urls.count)
    }

    @Test("a file replaced between reads fails with changed, never with bytes of both")
    func replacedFile() throws {
        let server = try RangeServer(file: Fixture.archive.bytes)
        defer { server.stop() }
        let reader = try ArchiveReader(url: server.url, configuration: testConfiguration())
        server.replace(with: Fixture.other)
        #expect {
            _ = try remoteBody(reader, Fixture.firstURL)
        } throws: { error in
            guard case .changed(let url, let reason)? = error as? RemoteError else { return false }
            return url == server.url && reason.contains("412")
        }
    }

    @Test("a replacement the server does not refuse (no If-Match support) is still caught by its ETag")
    func replacedWithoutPrecondition() throws {
        let validator = Validator(etag: "\"a\"", lastModified: nil)
        var response = FetchedResponse(
            status: 206, headers: ["ETag": "\"b\"", "Content-Range": "bytes 0-3/10"], bytes: [1, 2, 3, 4], finalURL: "u"
        )
        #expect(throws: RemoteError.changed(url: "u", reason: "ETag \"b\", was \"a\"")) {
            try HTTPByteSource.check(response, offset: 0, count: 4, size: 10, validator: validator, url: "u")
        }
        response.headers = ["ETag": "\"a\"", "Content-Range": "bytes 0-3/11"]
        #expect(throws: RemoteError.changed(url: "u", reason: "length 11, was 10")) {
            try HTTPByteSource.check(response, offset: 0, count: 4, size: 10, validator: validator, url: "u")
        }
        response.headers = ["ETag": "\"a\"", "Content-Range": "bytes 0-3/10"]
        #expect(
            try HTTPByteSource.check(response, offset: 0, count: 4, size: 10, validator: validator, url: "u") == [
                1, 2, 3, 4,
            ])
    }

    @Test("dropped connections and 5xx answers are retried")
    func retries() throws {
        let server = try RangeServer(file: Fixture.archive.bytes)
        defer { server.stop() }
        server.setFault(.drop(2))
        let reader = try ArchiveReader(url: server.url, configuration: testConfiguration())
        server.setFault(.dropMidBody(2))
        #expect(try remoteBody(reader, Fixture.bigURL) == Fixture.body(Fixture.bigURL))
        server.setFault(.status(503, 2))
        #expect(try remoteBody(reader, Fixture.firstURL) == Fixture.body(Fixture.firstURL))
    }

    @Test("a server that keeps dropping connections fails after the retries")
    func keepsDropping() throws {
        let server = try RangeServer(file: Fixture.archive.bytes)
        defer { server.stop() }
        server.setFault(.drop(1000))
        #expect {
            _ = try HTTPByteSource(url: server.url, configuration: testConfiguration(retries: 2))
        } throws: { error in
            guard case .connection? = error as? RemoteError else { return false }
            return true
        }
        #expect(server.requests.filter { $0.range == "bytes=-16384" }.count == 3)  // the tail: three tries
        server.setFault(.status(500, 1000))
        #expect(throws: RemoteError.status(url: server.url, status: 500, range: "-16384")) {
            _ = try HTTPByteSource(url: server.url, configuration: testConfiguration(retries: 1))
        }
    }

    @Test("404 is notFound")
    func notFound() throws {
        let server = try RangeServer(file: Fixture.archive.bytes)
        defer { server.stop() }
        let url = "http://127.0.0.1:\(server.port)/missing.webarc"
        #expect(throws: RemoteError.notFound(url: url, status: 404)) {
            _ = try ArchiveReader(url: url, configuration: testConfiguration())
        }
    }

    @Test("a server that ignores Range is refused without reading the file; a file within the tail read is taken whole")
    func ignoresRange() throws {
        let server = try RangeServer(file: Fixture.archive.bytes)
        defer { server.stop() }
        server.setFault(.ignoreRange)
        #expect(throws: RemoteError.rangesNotSupported(url: server.url)) {
            _ = try ArchiveReader(url: server.url, configuration: testConfiguration())
        }
        let folder = try TemporaryFolder()
        let writer = try ArchiveWriter(path: folder.file("small.webarc"))
        try writer.add(
            ResponseRecord(
                request: RequestRecord(url: "http://example.com/"), body: try writer.addBody(Array("hello".utf8))))
        try writer.finish()
        let small = try RangeServer(
            file: Array(try Data(contentsOf: URL(fileURLWithPath: folder.file("small.webarc")))))
        defer { small.stop() }
        small.setFault(.ignoreRange)
        let reader = try ArchiveReader(url: small.url, configuration: testConfiguration())
        #expect(try remoteBody(reader, "http://example.com/") == Array("hello".utf8))
    }

    @Test("a slow server times out")
    func slowServer() throws {
        let server = try RangeServer(file: Fixture.archive.bytes)
        defer { server.stop() }
        // The answer comes after 3 s: a read timeout that did not fire would open the file.
        server.setFault(.slow(3))
        #expect(throws: RemoteError.timedOut(url: server.url, range: "-16384")) {
            _ = try HTTPByteSource(url: server.url, configuration: testConfiguration(retries: 0, readTimeout: 0.3))
        }
    }

    @Test("https with a self-signed certificate the configuration trusts; refused when it is not trusted")
    func tls() throws {
        let server = try RangeServer(file: Fixture.archive.bytes, tls: true)
        defer { server.stop() }
        let reader = try ArchiveReader(url: server.url, configuration: testConfiguration())
        #expect(try remoteBody(reader, Fixture.bigURL) == Fixture.body(Fixture.bigURL))
        var untrusted = testConfiguration(retries: 3)
        untrusted.trustRoots = .certificates([])
        let trace = Trace()
        untrusted.trace = { trace.add($0) }
        let accepted = server.connections
        #expect {
            _ = try ArchiveReader(url: server.url, configuration: untrusted)
        } throws: { error in
            guard case .tls(_, let reason)? = error as? RemoteError else { return false }
            return reason.contains("not trusted")
        }
        // Refused at the handshake and not tried again: by us (no retry) nor by the client's
        // connection pool (one handshake for each of the two requests of opening, at most).
        #expect(!trace.lines.contains { $0.contains("retry") && $0.contains("bytes=-16384") }, "\(trace.lines)")
        #expect(server.connections - accepted <= 2)
    }

    @Test("a port nobody listens on fails at once as a refused connection, after the configured retries")
    func refusedConnection() throws {
        // A port bound by a socket that never listens: a stopped server's port could go to
        // another test's server before the requests below.
        let url = "http://127.0.0.1:\(try TestHTTPServer.refusedPort())/site.webarc"
        var configuration = testConfiguration(retries: 2)
        let trace = Trace()
        configuration.trace = { trace.add($0) }
        #expect {
            _ = try HTTPByteSource(url: url, configuration: configuration)
        } throws: { error in
            guard case .unreachable(_, let reason)? = error as? RemoteError else { return false }
            return reason.contains("refused")
        }
        // The tail's request, tried three times: twice again after the first refusal.
        let retries = trace.lines.filter { $0.contains("retry") && $0.contains("bytes=-16384") }
        #expect(retries.count == 2, "\(trace.lines)")
    }

    @Test("a redirect is followed once: later requests go where it led")
    func redirect() throws {
        let server = try RangeServer(file: Fixture.archive.bytes)
        defer { server.stop() }
        let moved = "http://127.0.0.1:\(server.port)/moved.webarc"
        let source = try HTTPByteSource(url: moved, configuration: testConfiguration())
        #expect(source.resolvedURL == server.url)
        let reader = try ArchiveReader(source: source, path: moved)
        server.resetLog()
        #expect(try remoteBody(reader, Fixture.firstURL) == Fixture.body(Fixture.firstURL))
        #expect(server.requests.allSatisfy { $0.target == "/site.webarc" })
    }

    @Test("a download refuses a file length no file can have, and a length that changed")
    func hostileLength() throws {
        let server = try RangeServer(file: Fixture.archive.bytes)
        defer { server.stop() }
        let source = try DownloadedByteSource(url: server.url, configuration: testConfiguration())
        #expect(throws: RemoteError.badResponse(url: server.url, reason: "a file length of \(UInt64.max) bytes")) {
            _ = try source.accept(headers: [:], first: 0, total: .max, for: DownloadRegion(0..<16))
        }
        #expect(throws: RemoteError.changed(url: server.url, reason: "length 7, was \(source.size)")) {
            _ = try source.accept(headers: [:], first: 0, total: 7, for: DownloadRegion(0..<16))
        }
        try source.finish()
    }

    @Test("Content-Range values")
    func contentRange() {
        #expect(ContentRange("bytes 0-9/100") == ContentRange(start: 0, end: 10, total: 100))
        #expect(ContentRange("bytes 90-99/*")?.total == nil)
        #expect(ContentRange("bytes */0")?.total == 0)
        #expect(ContentRange("bytes 9-0/100") == nil)
        #expect(ContentRange("bytes 0-100/100") == nil)
        #expect(ContentRange("items 0-1/2") == nil)
        #expect(ContentRange(nil) == nil)
    }

    /// FuzzRemoteResponse, FailCases/FuzzRemoteResponse/count-overflow.txt: `count` trapped
    /// converting a length over Int.max, which any server can claim in a 206.
    @Test("a Content-Range longer than Int.max counts Int.max and is refused as the wrong range")
    func contentRangeOverIntMax() {
        let header = "bytes 0-9223372036854775808/18446744073709551615"
        #expect(ContentRange(header)?.count == Int.max)
        #expect(ContentRange("bytes 1-18446744073709551614/*")?.count == Int.max)
        let response = FetchedResponse(
            status: 206, headers: ["Content-Range": header], bytes: [1, 2, 3, 4], finalURL: "u")
        #expect(throws: RemoteError.changed(url: "u", reason: "length 18446744073709551615, was 10")) {
            try HTTPByteSource.check(
                response, offset: 0, count: 4, size: 10, validator: Validator(etag: nil, lastModified: nil), url: "u")
        }
        let unknownTotal = FetchedResponse(
            status: 206, headers: ["Content-Range": "bytes 0-9223372036854775808/*"], bytes: [1, 2, 3, 4], finalURL: "u"
        )
        #expect(throws: RemoteError.self) {
            try HTTPByteSource.check(
                unknownTotal, offset: 0, count: 4, size: 10, validator: Validator(etag: nil, lastModified: nil),
                url: "u")
        }
    }
}
