import Foundation
import Testing
import WebArc
import WebArcRefresh
import WebArcTestSupport

/// `ArchiveRefresher` against a real server on 127.0.0.1: validators sent, 304s, changed bodies,
/// deleted pages, new redirects, a server that goes away; the update applies to the refreshed site.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct RefreshTests {
    /// A captured site: pages with the origin's ETag or Last-Modified, as a capture stores them.
    static let pages: [(path: String, body: String, validator: HTTPHeader)] = [
        ("/same-etag", "same page", HTTPHeader("ETag", "\"v1-same\"")),
        ("/same-date", "same by date", HTTPHeader("Last-Modified", "Tue, 01 Oct 2024 10:00:00 GMT")),
        (
            "/edited", "<p>version 1</p>" + String(repeating: " long text", count: 300),
            HTTPHeader("ETag", "\"v1-edited\"")
        ),
        ("/deleted", "soon gone", HTTPHeader("ETag", "\"v1-deleted\"")),
        ("/moved", "moved away", HTTPHeader("ETag", "\"v1-moved\"")),
    ]

    static func capture(in folder: TemporaryFolder, origin: String, captured: Date) throws -> String {
        try capture(pages.map { (origin + $0.path, 200, $0.body, $0.validator) }, in: folder, captured: captured)
    }

    /// An archive of `pages` (URL, status, body, validator), as a capture stores them; the first is
    /// the start URL.
    static func capture(
        _ pages: [(url: String, status: Int, body: String, validator: HTTPHeader)], in folder: TemporaryFolder,
        captured: Date
    ) throws -> String {
        let writer = try ArchiveWriter(path: folder.file("site.webarc"), options: .init(dictionaryInterval: 32))
        for page in pages {
            let body = try writer.addBody(Array(page.body.utf8))
            try writer.add(
                ResponseRecord(
                    request: RequestRecord(url: page.url), status: page.status,
                    headers: [HTTPHeader("Content-Type", "text/plain"), page.validator],
                    mimeType: "text/plain", body: body, captureDate: captured))
        }
        writer.metadata.startURL = pages.first?.url
        try writer.finish()
        return folder.file("site.webarc")
    }

    /// The live site now: two pages confirm (ETag, date), one changed, one gone, one redirects.
    static func live(_ request: TestHTTPServer.Request) -> TestHTTPServer.Response {
        switch request.target {
        case "/same-etag":
            return request.headers["if-none-match"] == "\"v1-same\"" ? .init(status: 304) : .init(text: "same page")
        case "/same-date":
            return request.headers["if-modified-since"] != nil ? .init(status: 304) : .init(text: "same by date")
        case "/edited":
            return .init(
                headers: [("ETag", "\"v2-edited\""), ("Content-Type", "text/plain; charset=utf-8")],
                text: "<p>version 2</p>" + String(repeating: " long text", count: 300))
        case "/deleted":
            return .init(status: 404, text: "not found")
        case "/moved":
            return .init(status: 301, headers: [("Location", "/new-home")], text: "")
        default:
            return .init(status: 500, text: "?")
        }
    }

    @Test("304s keep records, changes and deletions and redirects go into the update, which applies and serves")
    func refresh() async throws {
        let folder = try TemporaryFolder()
        let server = try TestHTTPServer(handler: Self.live)
        defer { server.stop() }
        let origin = "http://127.0.0.1:\(server.port)"
        let site = try Self.capture(in: folder, origin: origin, captured: Date(timeIntervalSince1970: 1_700_000_000))
        // Three of five pages change: more than the default share, which RefreshFaultTests pins.
        let summary = try await ArchiveRefresher(
            archive: site, options: RefreshOptions(olderThan: 86_400, maxChangeShare: nil)
        )
        .write(to: folder.file("update.webarc"))
        #expect(summary.asked == 5 && summary.stored == 5)
        #expect(summary.notModified == 2 && summary.unchanged == 2)
        #expect(summary.changed == 1 && summary.gone == 1 && summary.redirected == 1 && summary.keptAfterError == 0)
        // Only validators the origin gave, one kind each.
        let sent = server.received
        #expect(sent.first { $0.target == "/same-etag" }?.headers["if-none-match"] == "\"v1-same\"")
        #expect(sent.first { $0.target == "/same-etag" }?.headers["if-modified-since"] == nil)
        #expect(
            sent.first { $0.target == "/same-date" }?.headers["if-modified-since"] == "Tue, 01 Oct 2024 10:00:00 GMT")
        #expect(sent.filter { $0.target == "/new-home" }.isEmpty, "redirects are recorded, not followed")

        let stack = try LayerStack([
            try ArchiveReader(path: folder.file("update.webarc")), try ArchiveReader(path: site),
        ])
        func lookup(_ path: String) throws -> ArchiveRecord? {
            for reader in stack.layers {
                if let entry = try reader.lookup(url: origin + path) {
                    return entry.record.isTombstone ? nil : entry.record
                }
            }
            return nil
        }
        guard case .response(let edited)? = try lookup("/edited") else {
            Issue.record("no /edited")
            return
        }
        #expect(String(decoding: try stack.layers[0].body(edited.body), as: UTF8.self).hasPrefix("<p>version 2</p>"))
        #expect(edited.textEncoding == "utf-8")
        #expect(try lookup("/deleted") == nil)
        guard case .redirect(let moved)? = try lookup("/moved") else {
            Issue.record("no redirect for /moved")
            return
        }
        #expect(moved.target == origin + "/new-home" && moved.status == 301)
        guard case .response(let same)? = try lookup("/same-etag") else {
            Issue.record("no /same-etag")
            return
        }
        #expect(
            same.captureDate == Date(timeIntervalSince1970: 1_700_000_000),
            "confirmed records are not re-dated by default")
        #expect(
            try stack.top.metadata.entries.contains { $0.key == "refreshed" } == false,
            "the update's own metadata is diff's")

        try UpdateApplier(stack: stack).write(to: folder.file("refreshed.webarc"))
        let refreshed = try ArchiveReader(path: folder.file("refreshed.webarc"))
        #expect(refreshed.recordCount == 4)
        #expect(try refreshed.metadata.entries.contains { $0.key == "refreshed" })
    }

    @Test("younger responses are not asked; --redate moves confirmed capture dates forward")
    func olderThanAndRedate() async throws {
        let folder = try TemporaryFolder()
        let server = try TestHTTPServer(handler: Self.live)
        defer { server.stop() }
        let origin = "http://127.0.0.1:\(server.port)"
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let site = try Self.capture(in: folder, origin: origin, captured: now.addingTimeInterval(-3600))
        let young = try await ArchiveRefresher(archive: site, options: RefreshOptions(olderThan: 86_400, now: now))
            .write(to: folder.file("young.webarc"))
        #expect(young.asked == 0 && young.skipped == 5 && server.received.isEmpty)

        let redated = try await ArchiveRefresher(
            archive: site, options: RefreshOptions(now: now, redate: true, maxChangeShare: nil)
        ).write(to: folder.file("redated.webarc"))
        #expect(redated.unchanged == 2)
        let stack = try LayerStack([
            try ArchiveReader(path: folder.file("redated.webarc")), try ArchiveReader(path: site),
        ])
        guard case .response(let same)? = try stack.layers[0].lookup(url: origin + "/same-etag")?.record else {
            Issue.record("not re-dated")
            return
        }
        #expect(same.captureDate == now)
    }

    @Test("a server that is down: every URL kept after an error, two asked and three not, and nothing written")
    func serverDown() async throws {
        let folder = try TemporaryFolder()
        let port = try TestHTTPServer.refusedPort()
        let site = try Self.capture(
            in: folder, origin: "http://127.0.0.1:\(port)", captured: Date(timeIntervalSince1970: 1_700_000_000))
        let error = await #expect(throws: RefreshError.self) {
            try await ArchiveRefresher(archive: site, options: RefreshOptions(timeout: 2)).write(
                to: folder.file("update.webarc"))
        }
        guard case .noAnswers(let summary)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(summary.keptAfterError == 5 && summary.changed == 0 && summary.gone == 0)
        #expect(summary.kept.filter { $0.reason == .originUnreachable(failures: 2) }.count == 3, "\(summary.kept)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("update.webarc")))
    }

    @Test("--origin maps a packed archive's base URL to where the site lives; a packed ETag (webarc's MD5) is not sent")
    func originMapping() async throws {
        let folder = try TemporaryFolder()
        let server = try TestHTTPServer { request in
            request.target == "/docs/a.html" ? .init(status: 404, text: "") : .init(text: "page b")
        }
        defer { server.stop() }
        let writer = try ArchiveWriter(path: folder.file("packed.webarc"))
        for (path, text) in [("a.html", "page a"), ("b.html", "page b")] {
            let body = try writer.addBody(Array(text.utf8))
            try writer.add(
                ResponseRecord(
                    request: RequestRecord(url: "http://localhost/" + path),
                    headers: [HTTPHeader("ETag", body.reference.etag)], body: body))
        }
        try writer.finish()
        let options = RefreshOptions(
            origin: ("http://localhost/", "http://127.0.0.1:\(server.port)/docs/"), maxChangeShare: nil)
        let summary = try await ArchiveRefresher(archive: folder.file("packed.webarc"), options: options).write(
            to: folder.file("u.webarc"))
        #expect(summary.gone == 1 && summary.unchanged == 1, "\(summary)")
        #expect(server.received.map(\.target).sorted() == ["/docs/a.html", "/docs/b.html"])
        #expect(server.received.allSatisfy { $0.headers["if-none-match"] == nil })
        #expect(
            try ArchiveReader(path: folder.file("u.webarc")).lookup(url: "http://localhost/a.html")?.record.isTombstone
                == true)
    }
}
