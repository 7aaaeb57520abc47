import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcURLProtocol

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class LargeBodyReplay: ArchiveURLProtocol {}

/// Bodies must arrive whole through every API: swift-corelibs-foundation hands a completion
/// handler or `data(for:)` only the last `didLoad` piece, so those get one piece; a task that
/// reports to its session delegate gets 256 KiB pieces.
@Suite("Body delivery", .serialized, .timeLimit(.minutes(10)))
struct BodyDeliveryTests {
    static let large = SeededGenerator.packedBytes(5 * 1024 * 1024 + 123, seed: 0x5EED)
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
        var archive = ArchiveBuilder()
        archive.response("https://big.test/blob", mimeType: "application/octet-stream", body: Self.large)
        LargeBodyReplay.serve(try archive.build(in: folder), onMiss: .offline)
    }

    @Test("a multi-chunk body arrives whole through every API", arguments: LoadingAPI.allCases)
    func wholeBody(api: LoadingAPI) async throws {
        let fetched = await api.fetch("https://big.test/blob", through: LargeBodyReplay.self)
        #expect(fetched.error == nil)
        #expect(fetched.data?.count == Self.large.count)
        #expect(fetched.data == Data(Self.large))
        #expect(fetched.response?.value(forHTTPHeaderField: "Content-Length") == String(Self.large.count))
    }

    @Test("a session delegate receives the body in pieces of at most 256 KiB")
    func pieces() async throws {
        let delegate = CollectingDelegate()
        let session = session(through: LargeBodyReplay.self, delegate: delegate)
        defer { session.finishTasksAndInvalidate() }
        let (fetched, pieces) = await delegate.fetch(session, URLRequest(url: URL(string: "https://big.test/blob")!))
        #expect(fetched.data == Data(Self.large))
        #expect(pieces.count == 21)
        #expect(pieces.allSatisfy { $0 <= 256 * 1024 })
    }

    @Test("a completion handler or data(for:) on a session that has a data delegate still gets the whole body")
    func completionHandlerBesideDelegate() async throws {
        let delegate = CollectingDelegate()
        let session = session(through: LargeBodyReplay.self, delegate: delegate)
        defer { session.finishTasksAndInvalidate() }
        let request = URLRequest(url: URL(string: "https://big.test/blob")!)
        let handled = await fetchWithCompletionHandler(session, request)
        #expect(handled.data == Data(Self.large))
        let awaited = await fetchAsync(session, request)
        #expect(awaited.data == Data(Self.large))
        let (streamed, pieces) = await delegate.fetch(session, request)
        #expect(streamed.data == Data(Self.large))
        #expect(pieces.count > 1)
    }

    #if canImport(FoundationNetworking)
    @Test("Linux: a download task with a completion handler fails with cannotCreateFile, not a nil file")
    func downloadCompletionHandler() async throws {
        let session = session(through: LargeBodyReplay.self)
        defer { session.finishTasksAndInvalidate() }
        let (location, error) = await withCheckedContinuation { continuation in
            session.downloadTask(with: URL(string: "https://big.test/blob")!) { location, _, error in
                continuation.resume(returning: (location, error))
            }.resume()
        }
        #expect(location == nil)
        #expect((error as? URLError)?.code == .cannotCreateFile)
    }

    @Test("Linux: async download(for:) throws cannotCreateFile instead of crashing")
    func downloadAsync() async throws {
        let session = session(through: LargeBodyReplay.self)
        defer { session.finishTasksAndInvalidate() }
        await #expect(throws: URLError.self) {
            _ = try await session.download(for: URLRequest(url: URL(string: "https://big.test/blob")!))
        }
    }

    @Test("Linux: a download task with a delegate completes with cannotCreateFile instead of crashing")
    func downloadDelegate() async throws {
        final class Downloads: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {
            var continuation: CheckedContinuation<(any Error)?, Never>?
            func urlSession(
                _ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL
            ) {}
            func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
                continuation?.resume(returning: error)
            }
        }
        let delegate = Downloads()
        let session = session(through: LargeBodyReplay.self, delegate: delegate)
        defer { session.finishTasksAndInvalidate() }
        let error = await withCheckedContinuation { continuation in
            delegate.continuation = continuation
            session.downloadTask(with: URL(string: "https://big.test/blob")!).resume()
        }
        #expect((error as? URLError)?.code == .cannotCreateFile)
    }
    #endif
}
