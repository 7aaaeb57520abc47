import Foundation
import Synchronization
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcServer

/// The responder's reload: only the errors its reload recognises reopen the archives, requests
/// that failed together reopen them once, and a reopening that failed is not retried at once.
@Suite struct ResponderReloadTests {
    struct Changed: Error {}
    struct Damaged: Error {}

    /// The sets successive reopenings give, counting them.
    final class Opens: Sendable {
        private let state: Mutex<(sets: [ArchiveSet?], count: Int)>
        init(_ sets: [ArchiveSet?]) { state = Mutex((sets, 0)) }
        func next() -> ArchiveSet? {
            state.withLock {
                $0.count += 1
                return $0.sets.removeFirst()
            }
        }
        func count() -> Int { state.withLock { $0.count } }
    }

    /// A clock that moves only when the test says so.
    final class TestClock: Sendable {
        private let instant = Mutex(ContinuousClock.now)
        var now: ContinuousClock.Instant { instant.withLock { $0 } }
        func advance(by duration: Duration) { instant.withLock { $0 += duration } }
    }

    @Test(
        "an error the reload does not recognise neither reopens nor holds back a later change; a failed reopening waits"
    )
    func reloadsOnlyWhatItRecognises() throws {
        let folder = try TemporaryFolder()
        let first = try ArchiveSet(readers: [try SiteFixture.make(in: folder)])
        let other = try makeArchive(
            in: folder, name: "new.webarc", [.text("http://localhost/new.txt", "new", type: "text/plain")])
        let second = try ArchiveSet(readers: [other])
        let opens = Opens([nil, second])
        let clock = TestClock()
        let responder = ArchiveResponder(
            archives: first, cacheBytes: 64 << 20, bodyFiles: true, eventLoops: 1,
            reload: .init(recognises: { $0 is Changed }, reopen: { opens.next() }), clock: { clock.now })
        let reopened = opens.count
        #expect(!responder.reloadAfter(Damaged(), seen: 0))
        #expect(reopened() == 0)
        // The new version does not open: nothing changes, and the next failure does not try again at once.
        #expect(!responder.reloadAfter(Changed(), seen: 0))
        #expect(!responder.reloadAfter(Changed(), seen: 0))
        #expect(reopened() == 1 && responder.generation == 0)
        #expect(responder.decide(ArchiveRequest(method: "GET", target: "/new.txt")).status == 404)
        clock.advance(by: ArchiveResponder.retryAfterRefusal - .milliseconds(1))
        #expect(!responder.reloadAfter(Changed(), seen: 0), "still within the pause after the failure")
        #expect(reopened() == 1)
        clock.advance(by: .milliseconds(1))
        #expect(responder.reloadAfter(Changed(), seen: 0))
        #expect(reopened() == 2 && responder.generation == 1)
        // A request that failed on the old set finds it replaced already: no reopening.
        #expect(responder.reloadAfter(Changed(), seen: 0))
        #expect(reopened() == 2)
        #expect(responder.decide(ArchiveRequest(method: "GET", target: "/new.txt")).status == 200)
    }
}
