import Foundation
import Synchronization
import Testing

@testable import WebArcURLProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A URL protocol client that writes down every callback.
final class FakeClient: NSObject, URLProtocolClient, @unchecked Sendable {
    let calls = Mutex<[String]>([])

    func urlProtocol(_ protocol: URLProtocol, wasRedirectedTo request: URLRequest, redirectResponse: URLResponse) {
        calls.withLock { $0.append("redirect") }
    }
    func urlProtocol(_ protocol: URLProtocol, cachedResponseIsValid cachedResponse: CachedURLResponse) {}
    func urlProtocol(
        _ protocol: URLProtocol, didReceive response: URLResponse, cacheStoragePolicy policy: URLCache.StoragePolicy
    ) {
        calls.withLock { $0.append("response") }
    }
    func urlProtocol(_ protocol: URLProtocol, didLoad data: Data) { calls.withLock { $0.append("data \(data.count)") } }
    func urlProtocolDidFinishLoading(_ protocol: URLProtocol) { calls.withLock { $0.append("finish") } }
    func urlProtocol(_ protocol: URLProtocol, didFailWithError error: any Error) {
        calls.withLock { $0.append("fail") }
    }
    func urlProtocol(_ protocol: URLProtocol, didReceive challenge: URLAuthenticationChallenge) {}
    func urlProtocol(_ protocol: URLProtocol, didCancel challenge: URLAuthenticationChallenge) {}
}

@Suite("Protocol load")
struct ProtocolLoadTests {
    private func started(_ client: FakeClient) -> (ProtocolLoad, URLProtocol) {
        let instance = URLProtocol(
            request: URLRequest(url: URL(string: "https://x.test/")!), cachedResponse: nil, client: client)
        let load = ProtocolLoad()
        _ = load.start(instance)
        return (load, instance)
    }

    @Test("after stop, nothing reaches the client")
    func stopSilences() {
        let client = FakeClient()
        let (load, _) = started(client)
        #expect(load.load(Data([1])))
        load.stop()
        #expect(
            !load.receive(
                HTTPURLResponse(
                    url: URL(string: "https://x.test/")!, statusCode: 200, httpVersion: nil, headerFields: nil)!))
        #expect(!load.load(Data([2])))
        load.finish()
        load.fail(URLError(.cancelled))
        #expect(client.calls.withLock { $0 } == ["data 1"])
    }

    @Test("a load stopped before it started never starts")
    func stopBeforeStart() {
        let load = ProtocolLoad()
        load.stop()
        let instance = URLProtocol(
            request: URLRequest(url: URL(string: "https://x.test/")!), cachedResponse: nil, client: FakeClient())
        #expect(!load.start(instance))
    }

    @Test("onStop runs on stop, at once when already stopped, and not after a normal finish")
    func onStop() {
        let count = Atomic<Int>(0)
        let (load, _) = started(FakeClient())
        load.onStop { count.add(1, ordering: .relaxed) }
        load.stop()
        load.onStop { count.add(1, ordering: .relaxed) }
        #expect(count.load(ordering: .relaxed) == 2)

        let (finished, _) = started(FakeClient())
        finished.onStop { count.add(10, ordering: .relaxed) }
        finished.finish()
        finished.stop()
        #expect(count.load(ordering: .relaxed) == 2)
    }

    @Test("piecewise delivery stops at the first piece after a stop")
    func deliveryStops() throws {
        let client = FakeClient()
        let (load, _) = started(client)
        var produced = 0
        let completed = try BodyDelivery.pieces.send(through: load, length: 10) {
            produced += 1
            if produced == 4 { load.stop() }
            return produced <= 10 ? [UInt8](repeating: 0, count: 3) : nil
        }
        #expect(!completed)
        #expect(client.calls.withLock { $0 } == ["data 3", "data 3", "data 3"])
    }

    @Test("whole delivery sends one piece")
    func wholeDelivery() throws {
        let client = FakeClient()
        let (load, _) = started(client)
        var produced = 0
        let completed = try BodyDelivery.whole.send(through: load, length: 9) {
            produced += 1
            return produced <= 3 ? [1, 2, 3] : nil
        }
        #expect(completed)
        #expect(client.calls.withLock { $0 } == ["data 9"])
    }
}
