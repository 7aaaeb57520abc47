import Foundation
import Synchronization
import Testing
import WebArc
import WebArcRemote
import WebArcTestSupport
import WebArcURLProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An app serving a remote archive through the URL protocol (`serve(opening:)`) when the
/// publisher replaces the file at its URL: the handler reopens it and answers from the new
/// release, never from a mix of the two.
@Suite("The URL protocol serving a remote archive that is replaced at its URL", .serialized, .timeLimit(.minutes(10)))
struct RemoteURLProtocolReloadTests {
    final class ReloadingReplay: ArchiveURLProtocol {}
    /// A second handler, for a test that compares two ways of serving side by side.
    final class UncheckedReplay: ArchiveURLProtocol {}

    @Test("an uncached page comes from release 2 once the file is replaced; a page only release 1 had is a miss")
    func answersFromTheNewRelease() async throws {
        let origin = try RangeServer(file: Releases.one)
        defer { origin.stop() }
        let opens = try Self.serveCountingOpens(origin)
        defer { ReloadingReplay.stopServing() }
        let session = Self.session(ReloadingReplay.self)

        #expect(try await Self.body(session, Releases.page(0)) == Releases.body(1, Releases.page(0)))
        origin.replace(with: Releases.two)
        // Its index page is not cached: the lookup reads the file, finds it replaced, and the
        // request is answered from the reopened release 2.
        #expect(try await Self.body(session, Releases.page(1400)) == Releases.body(2, Releases.page(1400)))
        #expect(opens.value == 2)
        await #expect {
            _ = try await session.data(from: URL(string: Releases.only(1))!)
        } throws: { error in
            (error as? URLError)?.code == .resourceUnavailable
        }
        #expect(try await Self.body(session, Releases.only(2)) == Releases.body(2, Releases.only(2)))
        // A page the old reader had cached whole is not answered from it any more.
        #expect(try await Self.body(session, Releases.page(0)) == Releases.body(2, Releases.page(0)))
        #expect(opens.value == 2)
    }

    @Test(
        "a page the reader holds cached moves to release 2 once the timed origin check sees the file replaced; without the check it stays at release 1"
    )
    func timedOriginCheck() async throws {
        // The same archive served twice, with the check (every 200 ms) and without it, and both
        // replaced at once: what the checked one took to move is the time the other had to move.
        let checkedOrigin = try RangeServer(file: Releases.one)
        let uncheckedOrigin = try RangeServer(file: Releases.one)
        defer {
            checkedOrigin.stop()
            uncheckedOrigin.stop()
        }
        let checkedOpens = try Self.serveCountingOpens(checkedOrigin, recheckingOrigins: .milliseconds(200))
        defer { ReloadingReplay.stopServing() }
        let uncheckedOpens = try Self.serveCountingOpens(
            uncheckedOrigin, through: UncheckedReplay.self, recheckingOrigins: nil)
        defer { UncheckedReplay.stopServing() }
        let checked = Self.session(ReloadingReplay.self)
        let unchecked = Self.session(UncheckedReplay.self)
        #expect(try await Self.body(checked, Releases.page(0)) == Releases.body(1, Releases.page(0)))
        #expect(try await Self.body(unchecked, Releases.page(0)) == Releases.body(1, Releases.page(0)))
        checkedOrigin.replace(with: Releases.two)
        uncheckedOrigin.replace(with: Releases.two)
        uncheckedOrigin.resetLog()
        // Only page 0, whose leaf and body the readers hold: no read reaches the origins, and both
        // handlers get the same requests.
        let moved = try await waitUntil {
            let body = try await Self.body(unchecked, Releases.page(0))
            #expect(body == (try Releases.body(1, Releases.page(0))), "no check: the cached page stays at release 1")
            return try await Self.body(checked, Releases.page(0)) == Releases.body(2, Releases.page(0))
        }
        #expect(moved, "the check found release 2")
        #expect(checkedOpens.value == 2)
        #expect(try await Self.body(unchecked, Releases.page(0)) == Releases.body(1, Releases.page(0)))
        #expect(uncheckedOpens.value == 1)
        #expect(
            uncheckedOrigin.requests.isEmpty, "without the check nothing asks the origin: \(uncheckedOrigin.requests)")
    }

    @Test(
        "a local archive renamed over, then copied over in place, is reopened before the next request: each answer comes whole from the file at the path"
    )
    func localFileReplaced() async throws {
        let folder = try TemporaryFolder()
        let path = folder.file("bundle.webarc")
        try Data(Releases.one).write(to: URL(fileURLWithPath: path))
        let opens = Counter()
        try ReloadingReplay.serve(opening: {
            opens.add()
            return [try ArchiveReader(path: path)]
        })
        defer { ReloadingReplay.stopServing() }
        let session = Self.session(ReloadingReplay.self)
        #expect(try await Self.body(session, Releases.page(3)) == Releases.body(1, Releases.page(3)))

        // An app's update, written aside and renamed over: the open file still reads release 1
        // whole, so only the path says it changed.
        try Data(Releases.two).write(to: URL(fileURLWithPath: folder.file("next.webarc")))
        #expect(rename(folder.file("next.webarc"), path) == 0)
        #expect(try await Self.body(session, Releases.only(2)) == Releases.body(2, Releases.only(2)))
        #expect(try await Self.body(session, Releases.page(3)) == Releases.body(2, Releases.page(3)))
        #expect(opens.value == 2)

        // Release 1 copied back over it in place (same inode, other size and bytes).
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(Releases.one))
        try handle.close()
        #expect(try await Self.body(session, Releases.page(1400)) == Releases.body(1, Releases.page(1400)))
        #expect(try await Self.body(session, Releases.only(1)) == Releases.body(1, Releases.only(1)))
        #expect(opens.value == 3)
    }

    @Test(
        "under passThrough, a request whose lookup finds the file replaced is answered from release 2, not sent to the network"
    )
    func passThroughLooksAgain() async throws {
        let origin = try RangeServer(file: Releases.one)
        defer { origin.stop() }
        try ReloadingReplay.serve(
            opening: { [try ArchiveReader(url: origin.url, configuration: testConfiguration())] }, onMiss: .passThrough)
        defer { ReloadingReplay.stopServing() }
        let session = Self.session(ReloadingReplay.self)
        #expect(try await Self.body(session, Releases.page(0)) == Releases.body(1, Releases.page(0)))
        origin.replace(with: Releases.two)
        // canInit's lookup fails on release 1's uncached index page: declining would send the
        // request to example.com.
        #expect(try await Self.body(session, Releases.page(1400)) == Releases.body(2, Releases.page(1400)))
    }

    @Test(
        "a page whose record the old reader holds but whose body it must fetch is answered whole from release 2, head included"
    )
    func recordCachedBodyNot() async throws {
        let origin = try RangeServer(file: Releases.one)
        defer { origin.stop() }
        try ReloadingReplay.serve(opening: { [try ArchiveReader(url: origin.url, configuration: testConfiguration())] })
        defer { ReloadingReplay.stopServing() }
        let session = Self.session(ReloadingReplay.self)

        var head = URLRequest(url: URL(string: Releases.page(7))!)
        head.httpMethod = "HEAD"
        let (_, before) = try await session.data(for: head)
        #expect((before as? HTTPURLResponse)?.statusCode == 200)
        origin.replace(with: Releases.two)
        // The lookup succeeds from the cached index page of release 1; reading the body finds the
        // file replaced before the head went out, so the whole answer comes from release 2.
        let (data, response) = try await session.data(from: URL(string: Releases.page(7))!)
        let expected = try Releases.body(2, Releases.page(7))
        #expect(Array(data) == expected)
        #expect((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Content-Length") == "\(expected.count)")
    }

    @Test(
        "a body whose first pieces came from release 1 fails instead of going on from release 2; the next request gets release 2"
    )
    func bodyStartedFromTheOldReleaseFails() async throws {
        let origin = try RangeServer(file: Releases.one)
        defer { origin.stop() }
        let configuration = {
            var configuration = testConfiguration()
            // One window per chunk, so that the body's third chunk is a request of its own.
            configuration.prefetchWindow = 64 << 10
            return configuration
        }()
        try ReloadingReplay.serve(opening: { [try ArchiveReader(url: origin.url, configuration: configuration)] })
        defer { ReloadingReplay.stopServing() }

        var head = URLRequest(url: URL(string: Releases.big)!)
        head.httpMethod = "HEAD"
        _ = try await Self.session(ReloadingReplay.self).data(for: head)
        // The first two chunks come from release 1 (reading the first starts the second), the
        // third request finds release 2.
        origin.replace(with: Releases.two, after: 2)
        let delegate = PieceCollector()
        let configurationForDelegate = URLSessionConfiguration.ephemeral
        configurationForDelegate.protocolClasses = [ReloadingReplay.self]
        let streaming = URLSession(configuration: configurationForDelegate, delegate: delegate, delegateQueue: nil)
        let (received, error) = await delegate.fetch(streaming, URL(string: Releases.big)!)
        let old = try Releases.body(1, Releases.big)
        #expect(error != nil)
        #expect(!received.isEmpty && received.count < old.count && Array(received) == Array(old.prefix(received.count)))
        // The failure reopened the archive for the requests after it.
        #expect(try await Self.body(Self.session(ReloadingReplay.self), Releases.big) == Releases.body(2, Releases.big))
    }

    /// The pause after a failed reopening is long here (ten minutes), so that a machine short of
    /// CPU cannot stretch the requests after the failure past it (60 s once did, in a loaded run).
    @Test(
        "with a trust policy an unsigned replacement is never answered from, and a failed reopening is not retried at once"
    )
    func untrustedReplacement() async throws {
        try await Self.afterRefusedReplacement(retryAfterFailure: .seconds(600)) { session, opens, _, _, _ in
            await #expect(throws: URLError.self) { _ = try await session.data(from: URL(string: Releases.only(2))!) }
            await #expect(throws: URLError.self) { _ = try await session.data(from: URL(string: Releases.page(1300))!) }
            #expect(opens.value == 2)
        }
    }

    /// The pause is short here (1 s): requests fail during it without reopening (`opens` stays at
    /// 2 however many there are), and the first one after it reopens and is answered.
    @Test(
        "with a trust policy a signed release that replaces a refused one is served once the pause after the refusal is over"
    )
    func signedAfterRefusal() async throws {
        try await Self.afterRefusedReplacement(retryAfterFailure: .seconds(1)) { session, opens, origin, key, folder in
            origin.replace(with: try Releases.signed(2, with: key, sequence: 2, in: folder))
            let page = try Releases.body(2, Releases.page(1400))
            let served = await waitUntil {
                guard let (data, _) = try? await session.data(from: URL(string: Releases.page(1400))!) else {
                    return false
                }
                return Array(data) == page
            }
            #expect(served, "release 2 served after the pause")
            #expect(opens.value == 3 && ReloadingReplay.reopenFailure == nil)
        }
    }

    /// Serves signed release 1 with a trust policy, replaces it with the unsigned release 2, and
    /// checks that a request needing it reopens once and is refused (it fails, as the old release
    /// cannot be read any more, and the reason is kept); then runs `then`.
    private static func afterRefusedReplacement(
        retryAfterFailure: Duration,
        then: (URLSession, Counter, RangeServer, SigningKey, TemporaryFolder) async throws -> Void
    ) async throws {
        let key = SigningKey()
        let folder = try TemporaryFolder()
        let origin = try RangeServer(file: try Releases.signed(1, with: key, sequence: 1, in: folder))
        defer { origin.stop() }
        let opens = try serveCountingOpens(
            origin, trusting: TrustPolicy(trusting: [key.publicKey]), retryAfterFailure: retryAfterFailure)
        defer { ReloadingReplay.stopServing() }
        let session = session(ReloadingReplay.self)
        #expect(try await body(session, Releases.page(0)) == Releases.body(1, Releases.page(0)))

        origin.replace(with: Releases.two)
        await #expect {
            _ = try await session.data(from: URL(string: Releases.page(1400))!)
        } throws: { error in
            (error as? URLError)?.code == .cannotConnectToHost
        }
        #expect(opens.value == 2)
        let refusal = ReloadingReplay.reopenFailure as? WebArcError
        #expect(refusal?.code == WebArcError.unsigned(offset: 0).code, "\(String(describing: refusal))")
        try await then(session, opens, origin, key, folder)
    }

    @Test("a first opening that fails or is not trusted throws, and the handler keeps what it served")
    func firstOpeningFails() async throws {
        struct Offline: Error {}
        let folder = try TemporaryFolder()
        try Data(Releases.one).write(to: URL(fileURLWithPath: folder.file("one.webarc")))
        let local = try ArchiveReader(path: folder.file("one.webarc"))
        ReloadingReplay.serve(local)
        defer { ReloadingReplay.stopServing() }
        #expect(throws: Offline.self) { try ReloadingReplay.serve(opening: { throw Offline() }) }
        #expect(throws: WebArcError.self) {
            try ReloadingReplay.serve(opening: { [local] }, trusting: TrustPolicy(trusting: [SigningKey().publicKey]))
        }
        #expect(
            try await Self.body(Self.session(ReloadingReplay.self), Releases.page(3))
                == Releases.body(1, Releases.page(3)))
    }

    /// Serves the archive at `origin` through `handler` with `serve(opening:)`, counting
    /// the opens (the first, then one per reopening).
    static func serveCountingOpens(
        _ origin: RangeServer, through handler: ArchiveURLProtocol.Type = ReloadingReplay.self,
        trusting policy: TrustPolicy? = nil,
        recheckingOrigins recheck: Duration? = .seconds(60), retryAfterFailure: Duration = .seconds(5)
    ) throws -> Counter {
        let opens = Counter()
        try handler.serve(
            opening: {
                opens.add()
                return [try ArchiveReader(url: origin.url, configuration: testConfiguration())]
            }, trusting: policy, recheckingOrigins: recheck, retryAfterFailure: retryAfterFailure)
        return opens
    }

    /// An ephemeral session answered by `handler` only.
    static func session(_ handler: ArchiveURLProtocol.Type) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.protocolClasses = [handler]
        return URLSession(configuration: configuration)
    }

    /// The body of a 200 answer to GET `url`.
    static func body(_ session: URLSession, _ url: String) async throws -> [UInt8] {
        let (data, response) = try await session.data(from: URL(string: url)!)
        #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(url)")
        return Array(data)
    }
}

/// Counts calls from any thread.
final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// A session delegate that takes a body in pieces and keeps what arrived even when the task fails.
final class PieceCollector: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let state = Mutex<(data: Data, done: CheckedContinuation<(Data, (any Error)?), Never>?)>((Data(), nil))

    /// Runs a data task for `url`: the bytes received and the error it ended with.
    func fetch(_ session: URLSession, _ url: URL) async -> (Data, (any Error)?) {
        await withCheckedContinuation { continuation in
            state.withLock { $0 = (Data(), continuation) }
            session.dataTask(with: url).resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLock { $0.data.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (data, done) = state.withLock { state in
            defer { state.done = nil }
            return (state.data, state.done)
        }
        done?.resume(returning: (data, error))
    }
}

/// Two releases of one site published at one URL: the same 1500 pages with other bodies (so the
/// record tree has leaves well before the file's last 16 KiB), a page only each has, and a 700 KB
/// body of three chunks.
enum Releases {
    static let big = "http://example.com/video.bin"
    static let folder = try! TemporaryFolder.forProcess()

    static func page(_ index: Int) -> String { "http://example.com/page/\(index).html" }
    static func only(_ release: Int) -> String { "http://example.com/only-in-\(release).html" }

    static let one = make(1)
    static let two = make(2)

    /// Writes release `number` (and keeps its file, the truth remote reads are compared with).
    static func make(_ number: Int) -> [UInt8] {
        let path = folder.file("release-\(number).webarc")
        var random = SeededGenerator(seed: UInt64(20 + number))
        let writer = try! ArchiveWriter(path: path)
        func add(_ url: String, _ body: [UInt8]) {
            let stored = try! writer.addBody(body)
            try! writer.add(
                ResponseRecord(
                    request: RequestRecord(url: url), headers: [HTTPHeader("Content-Type", "text/html")],
                    mimeType: "text/html", body: stored))
        }
        for index in 0..<1500 {
            add(page(index), Array("<p>release \(number) page \(index) \(random.hex(60 * number))</p>".utf8))
        }
        add(only(number), Array("<p>only in release \(number)</p>".utf8))
        add(big, random.bytes(700_000))
        try! writer.finish()
        return Array(try! Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// The body of `url` in release `number`, read from its local file.
    static func body(_ number: Int, _ url: String) throws -> [UInt8] {
        _ = number == 1 ? one : two
        let reader = try ArchiveReader(path: folder.file("release-\(number).webarc"))
        guard case .response(let response)? = try reader.lookup(url: url)?.record else { throw Fixture.Missing() }
        return Array(try reader.body(response.body))
    }

    /// Release `number` signed with `key` as release `sequence`.
    static func signed(
        _ number: Int, with key: SigningKey, sequence: UInt64, in folder: TemporaryFolder
    ) throws -> [UInt8] {
        let path = folder.file("signed-\(number).webarc")
        try Data(number == 1 ? one : two).write(to: URL(fileURLWithPath: path))
        try ArchiveSigner.sign(path: path, with: key, sequence: sequence)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
