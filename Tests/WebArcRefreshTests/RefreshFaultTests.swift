import Foundation
import Synchronization
import Testing
import WebArc
import WebArcRefresh
import WebArcTestSupport

/// A refresh against a fault-injecting origin on 127.0.0.1 never turns a stored page into an error
/// page: error statuses, slow answers, stalled bodies, resets and TLS failures keep the record;
/// only 404 and 410 delete; 429/503 are asked again as their `Retry-After` says; a refresh that
/// would change too much of the archive, or got no usable answer at all, writes nothing.
@Suite(.serialized, .timeLimit(.minutes(10)))
struct RefreshFaultTests {
    @Test(
        "an error status keeps the stored page: nothing about it goes into the update",
        arguments: [401, 403, 407, 408, 429, 451, 500, 502, 503, 504])
    func errorStatusKeepsPage(status: Int) async throws {
        let site = try LiveSite { request in
            request.target == "/p02" ? .init(status: status, text: "error \(status)") : LiveSite.confirm(request)
        }
        let summary = try await site.refresh()
        #expect(summary.asked == 10 && summary.unchanged == 9 && summary.changed == 0 && summary.gone == 0)
        #expect(summary.kept == [KeptRecord(url: site.url("/p02"), reason: .status(status, retries: 0))])
        #expect(site.server.received.filter { $0.target == "/p02" }.count == 1, "no Retry-After: asked once")
        #expect(try ArchiveReader(path: site.update).lookup(url: site.url("/p02")) == nil)
        #expect(try site.served("/p02") == "stored /p02")
    }

    @Test("404 and 410 delete the page (one of ten: within the default share)", arguments: [404, 410])
    func goneDeletes(status: Int) async throws {
        let site = try LiveSite { request in
            request.target == "/p02" ? .init(status: status, text: "gone") : LiveSite.confirm(request)
        }
        let summary = try await site.refresh()
        #expect(summary.gone == 1 && summary.keptAfterError == 0 && summary.changeShare == 0.1)
        #expect(try ArchiveReader(path: site.update).lookup(url: site.url("/p02"))?.record.isTombstone == true)
        #expect(try site.served("/p02") == nil)
    }

    /// Faults below HTTP, and an answer too large to store.
    enum TransportFault: String, CaseIterable, Sendable {
        case slowAnswer, stalledBody, reset, tlsFailure, oversizedBody
    }

    @Test(
        "a slow answer, a body that stalls, a reset, a TLS failure or an oversized body keeps the stored page",
        arguments: TransportFault.allCases)
    func transportFaultKeepsPage(fault: TransportFault) async throws {
        // A plain HTTP server where the archive says https: the TLS handshake gets an HTTP answer.
        let plain = try TestHTTPServer(greeting: Array("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n".utf8)) {
            _ in .init()
        }
        defer { plain.stop() }
        let tlsURL = "https://127.0.0.1:\(plain.port)/p02"
        let site = try LiveSite(moving: fault == .tlsFailure ? ["/p02": tlsURL] : [:]) { request in
            guard request.target == "/p02" else { return LiveSite.confirm(request) }
            switch fault {
            case .slowAnswer:
                // Answers only once the client gave up (or after a hang guard).
                _ = request.waitForClose(timeout: 30)
                return .init(text: "too late")
            case .stalledBody:
                request.sendNow(
                    Array("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\nConnection: close\r\n\r\nthe first bytes".utf8))
                _ = request.waitForClose(timeout: 30)
                return .init(text: "never")
            case .reset:
                request.reset()
                return .init(text: "not sent")
            case .tlsFailure, .oversizedBody:
                return .init(text: String(repeating: "a new and much longer page ", count: 10))
            }
        }
        let faulty = fault == .tlsFailure ? tlsURL : site.url("/p02")
        let summary = try await site.refresh(
            RefreshOptions(timeout: 0.5, maxBodyBytes: fault == .oversizedBody ? 64 : 1 << 20))
        #expect(
            summary.asked == 10 && summary.unchanged == 9 && summary.changed == 0 && summary.keptAfterError == 1,
            "\(summary)")
        let kept = try #require(summary.kept.first)
        #expect(kept.url == faulty)
        switch (fault, kept.reason) {
        case (.slowAnswer, .timedOut(seconds: 0.5)), (.stalledBody, .timedOut(seconds: 0.5)), (.reset, .noAnswer),
            (.tlsFailure, .noAnswer),
            (.oversizedBody, .bodyTooLarge(limit: 64)):
            break
        default:
            Issue.record("\(fault): \(kept.reason)")
        }
        #expect(try ArchiveReader(path: site.update).lookup(url: faulty) == nil)
        #expect(try site.served(faulty) == "stored /p02")
    }

    @Test(
        "429 and 503 with Retry-After are asked again: the page answered after the wait is updated",
        arguments: [429, 503])
    func retryAfterHonoured(status: Int) async throws {
        let refusals = CallCounter()
        let site = try LiveSite { request in
            guard request.target == "/p02" else { return LiveSite.confirm(request) }
            return refusals.next() == 0
                ? .init(status: status, headers: [("Retry-After", "0")], text: "busy") : .init(text: "second edition")
        }
        let summary = try await site.refresh()
        #expect(summary.changed == 1 && summary.retried == 1 && summary.keptAfterError == 0, "\(summary)")
        #expect(site.server.received.filter { $0.target == "/p02" }.count == 2)
        #expect(try site.served("/p02") == "second edition")
    }

    @Test("an origin that keeps refusing: each page asked again twice at most, the next pages once, all kept")
    func retryAfterExhausted() async throws {
        let site = try LiveSite { request in
            ["/p02", "/p05"].contains(request.target)
                ? .init(status: 429, headers: [("Retry-After", "0")], text: "slow down") : LiveSite.confirm(request)
        }
        let summary = try await site.refresh()
        let asked = site.server.received.map(\.target)
        let first = try #require(asked.first { $0 == "/p02" || $0 == "/p05" })
        let second = first == "/p02" ? "/p05" : "/p02"
        #expect(asked.filter { $0 == first }.count == 3 && asked.filter { $0 == second }.count == 1, "\(asked)")
        #expect(
            Set(summary.kept.map(\.description)) == [
                "\(site.url(first)): HTTP 429 after 2 retries as its Retry-After asked",
                "\(site.url(second)): HTTP 429",
            ])
        #expect(summary.retried == 2 && summary.unchanged == 8)
    }

    @Test("a Retry-After longer than the limit keeps the page without waiting")
    func retryAfterTooLong() async throws {
        let site = try LiveSite { request in
            request.target == "/p02"
                ? .init(status: 503, headers: [("Retry-After", "3600")], text: "maintenance")
                : LiveSite.confirm(request)
        }
        let summary = try await site.refresh()
        #expect(
            summary.kept == [
                KeptRecord(url: site.url("/p02"), reason: .retryAfterTooLong(status: 503, seconds: 3600, limit: 60))
            ])
        #expect(site.server.received.filter { $0.target == "/p02" }.count == 1)
    }

    /// How an origin fails after its first answers.
    enum Breakdown: String, CaseIterable, Sendable {
        case serverErrors, resets
    }

    @Test(
        "an origin that starts failing halfway: the pages answered before are updated, the rest kept",
        arguments: Breakdown.allCases)
    func failsHalfway(breakdown: Breakdown) async throws {
        let answered = CallCounter()
        let site = try LiveSite { request in
            guard answered.next() >= 2 else { return .init(text: "second edition of \(request.target)") }
            if breakdown == .resets { request.reset() }
            return .init(status: 500, text: "internal error")
        }
        let summary = try await site.refresh()
        #expect(summary.changed == 2 && summary.keptAfterError == 8, "\(summary)")
        // Two resets in a row and the origin counts as down: its other pages are not asked.
        #expect(site.server.received.count == (breakdown == .resets ? 4 : 10))
        let updated = Set(site.server.received.prefix(2).map(\.target))
        for path in LiveSite.paths {
            #expect(try site.served(path) == (updated.contains(path) ? "second edition of \(path)" : "stored \(path)"))
        }
    }

    @Test("403 to everything: no page changed, nothing written, the error says the origin refused")
    func everythingForbidden() async throws {
        let site = try LiveSite { _ in .init(status: 403, text: "forbidden") }
        let error = await #expect(throws: RefreshError.self) { try await site.refresh() }
        guard case .noAnswers(let summary)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(summary.asked == 10 && summary.keptAfterError == 10 && summary.changed == 0 && summary.gone == 0)
        #expect(summary.kept.allSatisfy { $0.reason == .status(403, retries: 0) })
        #expect(!FileManager.default.fileExists(atPath: site.update))
    }

    /// Three of ten pages changed in one way or another.
    enum Change: String, CaseIterable, Sendable {
        case edited, mixed
    }

    @Test(
        "three of ten pages changed: more than a fifth stops the refresh; a larger share or no limit writes it",
        arguments: Change.allCases)
    func massChange(change: Change) async throws {
        let site = try LiveSite { request in
            switch (change, request.target) {
            case (.edited, "/p01"), (.edited, "/p02"), (.edited, "/p03"), (.mixed, "/p01"):
                return .init(text: "new \(request.target)")
            case (.mixed, "/p02"): return .init(status: 410, text: "gone")
            case (.mixed, "/p03"): return .init(status: 308, headers: [("Location", "/p00")], text: "")
            default: return LiveSite.confirm(request)
            }
        }
        let error = await #expect(throws: RefreshError.self) { try await site.refresh() }
        guard case .massChange(let limit, let summary)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
        #expect(limit == 0.2 && summary.changeShare == 0.3 && summary.stored == 10)
        #expect(
            error?.description
                == "the refresh would change \(change == .edited ? 3 : 2) and delete \(change == .edited ? 0 : 1) "
                + "of 10 stored responses (30 %), more than the 20 % allowed: nothing written")
        #expect(!FileManager.default.fileExists(atPath: site.update))

        for limit in [0.3, nil] {
            let written = try await site.refresh(RefreshOptions(maxChangeShare: limit))
            #expect(written.changed + written.gone + written.redirected == 3)
            #expect(try site.served("/p01") == "new /p01")
        }
    }

    @Test(
        "a page archived as an error page: 200 replaces it, the same error with other bytes updates it, another error keeps it"
    )
    func storedErrorPage() async throws {
        let site = try LiveSite(status: { ["/p01", "/p02", "/p03"].contains($0) ? 403 : 200 }) { request in
            switch request.target {
            case "/p01": .init(text: "now public")
            case "/p02": .init(status: 403, text: "forbidden, second wording")
            case "/p03": .init(status: 503, text: "down")
            default: LiveSite.confirm(request)
            }
        }
        let summary = try await site.refresh(RefreshOptions(maxChangeShare: nil))
        #expect(
            summary.changed == 2
                && summary.kept == [KeptRecord(url: site.url("/p03"), reason: .status(503, retries: 0))], "\(summary)")
        #expect(try site.served("/p01") == "now public")
        #expect(try site.served("/p02") == "forbidden, second wording")
        #expect(try site.served("/p03") == "stored /p03")
    }
}

/// Ten captured pages and the live origin they came from, answering with a handler; the origin
/// stops when the site is released.
final class LiveSite: Sendable {
    /// The pages, in the archive's (and so the refresh's) order.
    static let paths = (0..<10).map { String(format: "/p%02d", $0) }

    let folder: TemporaryFolder
    let server: TestHTTPServer
    /// The captured archive.
    let archive: String
    /// Where ``refresh(_:)`` writes the update.
    var update: String { folder.file("update.webarc") }

    /// Captures ``paths``, each stored as `stored <path>` with `status(path)` and an ETag that
    /// ``confirm(_:)`` recognises; `moving` gives some pages another URL (another origin's).
    init(
        status: (String) -> Int = { _ in 200 }, moving: [String: String] = [:],
        handler: @escaping @Sendable (TestHTTPServer.Request) -> TestHTTPServer.Response
    ) throws {
        folder = try TemporaryFolder()
        server = try TestHTTPServer(handler: handler)
        let origin = "http://127.0.0.1:\(server.port)"
        let pages = Self.paths.map {
            (moving[$0] ?? origin + $0, status($0), "stored \($0)", HTTPHeader("ETag", "\"v1\($0)\""))
        }
        archive = try RefreshTests.capture(pages, in: folder, captured: Date(timeIntervalSince1970: 1_700_000_000))
    }

    deinit { server.stop() }

    /// The live URL of `path`.
    func url(_ path: String) -> String { "http://127.0.0.1:\(server.port)\(path)" }

    /// Refreshes the archive into ``update``.
    func refresh(_ options: RefreshOptions = RefreshOptions()) async throws -> RefreshSummary {
        try await ArchiveRefresher(archive: archive, options: options).write(to: update, overwrite: true)
    }

    /// What a kiosk serves for `path` (or a whole URL) with the update layered over the archive:
    /// the body, `-> target` for a redirect, nil when deleted.
    func served(_ path: String) throws -> String? {
        let url = path.hasPrefix("/") ? self.url(path) : path
        for file in [update, archive] {
            let reader = try ArchiveReader(path: file)
            guard let record = try reader.lookup(url: url)?.record else { continue }
            switch record {
            case .response(let response): return String(decoding: try reader.body(response.body), as: UTF8.self)
            case .redirect(let redirect): return "-> " + redirect.target
            default: return nil
            }
        }
        return nil
    }

    /// The live site where nothing changed: every page confirms its ETag.
    static func confirm(_ request: TestHTTPServer.Request) -> TestHTTPServer.Response {
        request.headers["if-none-match"] == "\"v1\(request.target)\""
            ? .init(status: 304) : .init(status: 400, text: "no validator")
    }
}

/// Counts calls across the server's threads: 0 for the first.
final class CallCounter: Sendable {
    private let count = Mutex(0)

    func next() -> Int {
        count.withLock { value in
            defer { value += 1 }
            return value
        }
    }
}
