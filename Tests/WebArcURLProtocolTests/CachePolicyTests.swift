import Foundation
import Testing
import WebArc
import WebArcTestSupport
import WebArcURLProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class RevalidatingCache: ArchiveURLProtocol {}
final class CacheFirstCache: ArchiveURLProtocol {}
final class NetworkFirstCache: ArchiveURLProtocol {}
final class OfflineCache: ArchiveURLProtocol {}

/// The URL protocol as a cache over a shipped bundle and a writable layer, against a real
/// 127.0.0.1 server: revalidation (304, changed body, deleted page), network first with an
/// offline fallback, cache first with background refreshes racing requests, the layer across a
/// restart, a stale layer, and the bundle's bytes never touched.
@Suite("ArchiveURLProtocol as a cache", .serialized, .timeLimit(.minutes(10)))
struct CachePolicyTests {
    /// Long ago: every entry of the bundle is expired under any sensible max age.
    static let captured = Date(timeIntervalSince1970: 1_600_000_000)
    static let lastModified = "Sun, 13 Sep 2020 12:26:40 GMT"

    let folder: TemporaryFolder
    let site: CacheSite
    let server: TestHTTPServer

    init() throws {
        folder = try TemporaryFolder()
        let site = CacheSite([
            "/same": .init(body: "same page", etag: "\"s1\""),
            "/edited": .init(body: "edited page, version 2", etag: "\"e2\""),
            "/dated": .init(body: "dated page", lastModified: Self.lastModified),
            "/other": .init(body: "other page, version 2", etag: "\"o2\""),
            "/moved": .init(status: 301, body: "", location: "/edited"),
        ])
        self.site = site
        // Tests stop it and then expect its port to refuse: no other test's server may be given it.
        server = try TestHTTPServer(port: try PrivatePort.next()) { site.respond($0) }
    }

    /// The publisher's key: every bundle here is signed, as an app ships it.
    let publisher = SigningKey()

    /// The shipped, signed bundle: every page as first captured, long ago.
    func bundle() throws -> (reader: ArchiveReader, bytes: Data) {
        var archive = ArchiveBuilder()
        func page(_ path: String, _ text: String, _ headers: [HTTPHeader]) {
            archive.response(
                server.url(path).absoluteString, headers: headers, mimeType: "text/html", body: Array(text.utf8),
                captureDate: Self.captured)
        }
        page("/same", "same page", [HTTPHeader("ETag", "\"s1\"")])
        page("/edited", "edited page, version 1", [HTTPHeader("ETag", "\"e1\"")])
        page("/dated", "dated page", [HTTPHeader("Last-Modified", Self.lastModified)])
        page("/gone", "a page the site deletes", [HTTPHeader("ETag", "\"g1\"")])
        page("/other", "other page, version 1", [HTTPHeader("ETag", "\"o1\"")])
        page("/moved", "a page the site now redirects", [HTTPHeader("ETag", "\"m1\"")])
        let path = try archive.build(in: folder, name: "bundle.webarc").path
        try ArchiveSigner.sign(path: path, with: publisher, sequence: 1)
        let reader = try ArchiveReader(path: path)
        _ = try reader.checkTrust(TrustPolicy(trusting: [publisher.publicKey]))
        return (reader, try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func get(_ session: URLSession, _ path: String) async -> Fetched {
        await fetchAsync(session, URLRequest(url: server.url(path)))
    }

    func requests(to path: String) -> [TestHTTPServer.Request] { server.received.filter { $0.target == path } }

    /// A cache-first handler over the bundle that has fetched (and queued for its layer) a page
    /// the bundle lacks.
    func cacheFirstAfterAddedPage() async throws
        -> (bundle: ArchiveReader, bytes: Data, layer: String, cache: ArchiveCache, online: URLSession)
    {
        let (bundle, bytes) = try bundle()
        let layer = folder.file("layer.webarc")
        site.set("/added", .init(body: "a page added after the bundle shipped"))
        let cache = CacheFirstCache.serve(bundle: bundle, layer: layer, policy: .cacheFirst(maxAge: 3600))
        let online = session(through: CacheFirstCache.self)
        #expect(await get(online, "/added").text == "a page added after the bundle shipped")
        return (bundle, bytes, layer, cache, online)
    }

    @Test(
        "revalidate: 304 answers the archive's body, with only the validators the origin gave; the layer stores no body again"
    )
    func notModified() async throws {
        let (bundle, bytes) = try bundle()
        let layer = folder.file("layer.webarc")
        let cache = RevalidatingCache.serve(bundle: bundle, layer: layer, policy: .revalidate)
        let session = session(through: RevalidatingCache.self)

        let same = await get(session, "/same")
        #expect(same.status == 200 && same.text == "same page")
        let dated = await get(session, "/dated")
        #expect(dated.status == 200 && dated.text == "dated page")
        #expect(requests(to: "/same").map { $0.headers["if-none-match"] } == ["\"s1\""])
        #expect(requests(to: "/dated").map { $0.headers["if-modified-since"] } == [Self.lastModified])
        #expect(requests(to: "/dated").allSatisfy { $0.headers["if-none-match"] == nil })

        await cache.settle()
        #expect(cache.statistics.notModified == 2)
        let stored = try ArchiveReader(path: layer, bases: [bundle])
        #expect(stored.storedBodyBytes == 0)
        let record = try #require(try stored.lookup(url: server.url("/same").absoluteString)?.record)
        #expect(record.captureDate.map { $0 > Self.captured } == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: bundle.path)) == bytes)
    }

    @Test("revalidate: webarc's own MD5 ETag is never sent; Last-Modified is")
    func ownETagNotSent() async throws {
        var first = ArchiveBuilder()
        first.response(server.url("/dated").absoluteString, body: Array("dated page".utf8), captureDate: Self.captured)
        let md5 = try #require(
            try first.build(in: folder, name: "probe.webarc").lookup(url: server.url("/dated").absoluteString))
        guard case .response(let probe) = md5.record else { return }
        var archive = ArchiveBuilder()
        archive.response(
            server.url("/dated").absoluteString,
            headers: [HTTPHeader("ETag", probe.body.etag), HTTPHeader("Last-Modified", Self.lastModified)],
            body: Array("dated page".utf8), captureDate: Self.captured)
        let bundle = try archive.build(in: folder, name: "packed.webarc")
        RevalidatingCache.serve(bundle: bundle, layer: folder.file("layer.webarc"), policy: .revalidate)

        let dated = await get(session(through: RevalidatingCache.self), "/dated")
        #expect(dated.text == "dated page")
        #expect(requests(to: "/dated").map { $0.headers["if-none-match"] } == [nil])
        #expect(requests(to: "/dated").map { $0.headers["if-modified-since"] } == [Self.lastModified])
    }

    @Test(
        "revalidate: a changed body is answered live and replaces the entry, read first after a restart; the signed bundle still verifies"
    )
    func changedBody() async throws {
        let (bundle, bytes) = try bundle()
        let layer = folder.file("layer.webarc")
        let cache = RevalidatingCache.serve(bundle: bundle, layer: layer, policy: .revalidate)
        let edited = await get(session(through: RevalidatingCache.self), "/edited")
        #expect(edited.status == 200 && edited.text == "edited page, version 2")
        #expect(edited.response?.value(forHTTPHeaderField: "ETag") == "\"e2\"")
        await cache.settle()
        #expect(cache.layerWrites == 1)

        server.stop()
        let restarted = OfflineCache.serve(bundle: try ArchiveReader(path: bundle.path), layer: layer, policy: .offline)
        #expect(restarted.discardedLayer == nil)
        let offline = session(through: OfflineCache.self)
        #expect(await get(offline, "/edited").text == "edited page, version 2")
        #expect(await get(offline, "/other").text == "other page, version 1")
        #expect(try Data(contentsOf: URL(fileURLWithPath: bundle.path)) == bytes)
        #expect(throws: Never.self) {
            try ArchiveReader(path: bundle.path).checkTrust(TrustPolicy(trusting: [publisher.publicKey]))
        }
    }

    @Test("a page the site deleted: the live 404 is answered and stored, so offline it stays the site's 404")
    func deletedPage() async throws {
        let (bundle, bytes) = try bundle()
        let layer = folder.file("layer.webarc")
        let cache = RevalidatingCache.serve(bundle: bundle, layer: layer, policy: .revalidate)
        let gone = await get(session(through: RevalidatingCache.self), "/gone")
        #expect(gone.status == 404)
        #expect(gone.text == "no such page: /gone")
        await cache.settle()

        server.stop()
        OfflineCache.serve(bundle: bundle, layer: layer, policy: .offline)
        let offline = await get(session(through: OfflineCache.self), "/gone")
        #expect(offline.status == 404)
        #expect(offline.text == "no such page: /gone")
        #expect(try Data(contentsOf: URL(fileURLWithPath: bundle.path)) == bytes)
    }

    @Test("network first: live while the server answers, the archive's answer once it is down, an error for a miss")
    func networkFirstFallsBack() async throws {
        let (bundle, bytes) = try bundle()
        let cache = NetworkFirstCache.serve(bundle: bundle, layer: folder.file("layer.webarc"), policy: .networkFirst)
        let session = session(through: NetworkFirstCache.self)
        #expect(await get(session, "/edited").text == "edited page, version 2")
        #expect(requests(to: "/edited").map { $0.headers["if-none-match"] } == [nil])
        await cache.settle()

        server.stop()
        #expect(await get(session, "/edited").text == "edited page, version 2")
        #expect(await get(session, "/other").text == "other page, version 1")
        let miss = await get(session, "/never-captured")
        #expect(miss.urlErrorCode == .cannotConnectToHost)
        #expect(cache.statistics.fallbacks == 2)
        #expect(try Data(contentsOf: URL(fileURLWithPath: bundle.path)) == bytes)
    }

    @Test("cache first: many requests for one expired URL get the archive at once; exactly one refresh goes live")
    func backgroundRefreshRace() async throws {
        let (bundle, bytes) = try bundle()
        let cache = CacheFirstCache.serve(
            bundle: bundle, layer: folder.file("layer.webarc"), policy: .cacheFirst(maxAge: 3600))
        let session = session(through: CacheFirstCache.self)
        site.close()
        let answers = await withTaskGroup(of: Fetched.self) { group in
            for _ in 0..<24 { group.addTask { await get(session, "/edited") } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        // Every request was answered while the one refresh was still held at the server.
        #expect(answers.count == 24)
        #expect(answers.allSatisfy { $0.status == 200 && $0.text == "edited page, version 1" })
        site.open()
        await cache.settle()
        #expect(!site.gateTimedOut)
        #expect(requests(to: "/edited").count == 1)
        #expect(requests(to: "/edited").first?.headers["if-none-match"] == "\"e1\"")
        #expect(cache.statistics.backgroundRefreshes == 1)

        // Now fresh: answered from the layer without going live.
        #expect(await get(session, "/edited").text == "edited page, version 2")
        #expect(requests(to: "/edited").count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: bundle.path)) == bytes)
    }

    @Test("cache first: a miss goes live and is stored; the layer survives a restart and is read before the bundle")
    func missStoredAcrossRestart() async throws {
        let (bundle, bytes, layer, cache, online) = try await cacheFirstAfterAddedPage()
        _ = await get(online, "/other")
        await cache.settle()
        #expect(requests(to: "/other").count == 1)

        server.stop()
        OfflineCache.serve(bundle: try ArchiveReader(path: bundle.path), layer: layer, policy: .offline)
        let offline = session(through: OfflineCache.self)
        #expect(await get(offline, "/added").text == "a page added after the bundle shipped")
        #expect(await get(offline, "/other").text == "other page, version 2")
        #expect(await get(offline, "/never-captured").urlErrorCode == .resourceUnavailable)
        #expect(try Data(contentsOf: URL(fileURLWithPath: bundle.path)) == bytes)
    }

    @Test("a layer made over another bundle is discarded at setup with a clear error; the new bundle answers")
    func staleLayerDiscarded() async throws {
        let (bundle, _) = try bundle()
        let layer = folder.file("layer.webarc")
        let cache = RevalidatingCache.serve(bundle: bundle, layer: layer, policy: .revalidate)
        _ = await get(session(through: RevalidatingCache.self), "/edited")
        await cache.settle()
        #expect(FileManager.default.fileExists(atPath: layer))

        var next = ArchiveBuilder()
        next.response(server.url("/edited").absoluteString, text: "edited page, shipped in the next bundle")
        let newBundle = try next.build(in: folder, name: "bundle-2.webarc")
        let restarted = OfflineCache.serve(bundle: newBundle, layer: layer, policy: .offline)
        guard case .staleLayer(let path, .badBase) = restarted.discardedLayer else {
            Issue.record("expected a stale layer, got \(String(describing: restarted.discardedLayer))")
            return
        }
        #expect(path == layer)
        #expect(!FileManager.default.fileExists(atPath: layer))
        #expect(
            await get(session(through: OfflineCache.self), "/edited").text == "edited page, shipped in the next bundle")
    }

    @Test("the server going down during a background refresh loses nothing: the previous layer file stays as it was")
    func serverDownDuringRefresh() async throws {
        let (bundle, bytes, layer, cache, online) = try await cacheFirstAfterAddedPage()
        await cache.settle()
        let written = try Data(contentsOf: URL(fileURLWithPath: layer))

        server.stop()
        #expect(await get(online, "/edited").text == "edited page, version 1")
        await cache.settle()
        #expect(cache.statistics.backgroundRefreshes == 1)
        #expect(cache.lastWriteError == nil)
        #expect(cache.layerWrites == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: layer)) == written)
        #expect(await get(online, "/added").text == "a page added after the bundle shipped")
        // A failed refresh is not retried at every request while the network is away.
        #expect(await get(online, "/edited").text == "edited page, version 1")
        await cache.settle()
        #expect(cache.statistics.backgroundRefreshes == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: bundle.path)) == bytes)
    }

    @Test("a layer that cannot be written: the caller still gets the live answer, and the failure is reported")
    func layerWriteFails() async throws {
        let (bundle, _) = try bundle()
        let layer = folder.file("missing-folder/layer.webarc")
        let cache = NetworkFirstCache.serve(bundle: bundle, layer: layer, policy: .networkFirst)
        #expect(await get(session(through: NetworkFirstCache.self), "/edited").text == "edited page, version 2")
        await cache.settle()
        guard case .layerWrite(let path, _) = cache.lastWriteError else {
            Issue.record("expected a layer write error, got \(String(describing: cache.lastWriteError))")
            return
        }
        #expect(path == layer)
        #expect(cache.lastWriteError?.urlError.code == .cannotWriteToFile)
        #expect(cache.layerWrites == 0)
    }

    @Test("revalidate: a page that now redirects is answered with the live target, and the new redirect is stored")
    func newRedirect() async throws {
        let (bundle, bytes) = try bundle()
        let layer = folder.file("layer.webarc")
        let cache = RevalidatingCache.serve(bundle: bundle, layer: layer, policy: .revalidate)
        let moved = await get(session(through: RevalidatingCache.self), "/moved")
        #expect(moved.status == 200 && moved.text == "edited page, version 2")
        #expect(moved.response?.url == server.url("/edited"))
        await cache.settle()

        let stored = try ArchiveReader(path: layer, bases: [bundle])
        guard case .redirect(let redirect)? = try stored.lookup(url: server.url("/moved").absoluteString)?.record else {
            Issue.record("no redirect record stored for /moved")
            return
        }
        #expect(redirect.status == 301 && redirect.target == server.url("/edited").absoluteString)
        server.stop()
        OfflineCache.serve(bundle: bundle, layer: layer, policy: .offline)
        let offline = await get(session(through: OfflineCache.self), "/moved")
        #expect(offline.text == "edited page, version 2")
        #expect(try Data(contentsOf: URL(fileURLWithPath: bundle.path)) == bytes)
    }

    @Test("a live answer reaches a session delegate in pieces, and the stored copy is whole")
    func liveAnswerInPieces() async throws {
        let (bundle, _) = try bundle()
        let big = String(repeating: "a large page that changed. ", count: 40_000)
        site.set("/edited", .init(body: big, etag: "\"e3\""))
        let layer = folder.file("layer.webarc")
        let cache = NetworkFirstCache.serve(bundle: bundle, layer: layer, policy: .networkFirst)
        let delegate = CollectingDelegate()
        let (fetched, pieces) = await delegate.fetch(
            session(through: NetworkFirstCache.self, delegate: delegate), URLRequest(url: server.url("/edited")))
        #expect(fetched.text == big)
        #expect(pieces.count > 1)
        await cache.settle()
        let stored = try ArchiveReader(path: layer, bases: [bundle])
        guard case .response(let record)? = try stored.lookup(url: server.url("/edited").absoluteString)?.record else {
            Issue.record("no response stored")
            return
        }
        #expect(try stored.body(record.body) == Data(big.utf8))
    }
}
