import Foundation
import Testing
import WebArcTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The test server itself: a stopped server must never answer for another one.
@Suite("The test HTTP server")
struct TestHTTPServerTests {
    /// A server stopped before its accept loop ran once used to close its socket under that loop;
    /// the next server got the same descriptor number, and the stopped server's handler answered
    /// its requests (a recorder test once stored an empty 200 this way).
    @Test("a server stopped at once never answers the requests of the server made after it")
    func stoppedServerStaysSilent() async throws {
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        for round in 0..<100 {
            let stopped = try TestHTTPServer { _ in .init(text: "stopped") }
            stopped.stop()
            let live = try TestHTTPServer { _ in .init(text: "live") }
            defer { live.stop() }
            let (data, _) = try await session.data(from: live.url("/round/\(round)"))
            #expect(String(decoding: data, as: UTF8.self) == "live", "round \(round)")
            #expect(live.received.map(\.target) == ["/round/\(round)"], "round \(round)")
        }
    }

    @Test("a stopped server's port refuses connections")
    func stoppedPortRefuses() async throws {
        let port = try TestHTTPServer.refusedPort()
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        await #expect {
            _ = try await session.data(from: URL(string: "http://127.0.0.1:\(port)/")!)
        } throws: { error in
            (error as? URLError)?.code == .cannotConnectToHost
        }
    }
}
