import Foundation
import Synchronization
import Testing
import WebArc
import WebArcRemote
import WebArcTestSupport

/// The lines a ``RemoteConfiguration/trace`` wrote, from any thread.
final class Trace: Sendable {
    private let stored = Mutex<[String]>([])
    func add(_ line: String) { stored.withLock { $0.append(line) } }
    var lines: [String] { stored.withLock { $0 } }
}

/// The archive the tests read remotely: 1500 pages under random paths (so the record tree has
/// leaves well before the last 64 KiB), and one 700 KB body of three chunks.
enum Fixture {
    static let bigURL = "http://example.com/video.bin"
    static let folder = try! TemporaryFolder.forProcess()

    static let archive: (bytes: [UInt8], path: String, urls: [String]) = {
        let path = folder.file("site.webarc")
        var random = SeededGenerator(seed: 13)
        let writer = try! ArchiveWriter(path: path)
        var urls: [String] = []
        for index in 0..<1500 {
            let url = "http://example.com/page/\(random.hex(12))/\(index).html"
            urls.append(url)
            let body = try! writer.addBody(Array("<p>page \(index) \(random.hex(100))</p>".utf8))
            try! writer.add(
                ResponseRecord(
                    request: RequestRecord(url: url),
                    headers: [HTTPHeader("Content-Type", "text/html"), HTTPHeader("X-Token", random.hex(40))],
                    mimeType: "text/html", body: body))
        }
        let big = try! writer.addBody(random.bytes(700_000))
        try! writer.add(
            ResponseRecord(
                request: RequestRecord(url: bigURL), headers: [HTTPHeader("Content-Type", "application/octet-stream")],
                body: big))
        urls.append(bigURL)
        try! writer.finish()
        return (Array(try! Data(contentsOf: URL(fileURLWithPath: path))), path, urls)
    }()

    /// Another archive, for a file replaced while it is read.
    static let other: [UInt8] = {
        let folder = try! TemporaryFolder()
        let writer = try! ArchiveWriter(path: folder.file("other.webarc"))
        var random = SeededGenerator(seed: 14)
        for index in 0..<1500 {
            let body = try! writer.addBody(Array("<p>other \(index) \(random.hex(100))</p>".utf8))
            try! writer.add(
                ResponseRecord(
                    request: RequestRecord(url: "http://example.com/other/\(random.hex(12))/\(index)"), body: body))
        }
        try! writer.finish()
        return Array(try! Data(contentsOf: URL(fileURLWithPath: folder.file("other.webarc"))))
    }()

    /// The local reader of the fixture, the truth remote reads are compared with.
    static let local = try! ArchiveReader(path: archive.path)

    /// The URL whose record sorts first: its leaf is the farthest from the end of the file.
    static let firstURL: String = {
        var first: String?
        try! local.forEachEntry { entry in
            if first == nil, case .response(let response) = entry.record { first = response.request.url }
        }
        return first!
    }()

    /// The body bytes of `url`, read from the local file.
    static func body(_ url: String) throws -> [UInt8] {
        guard case .response(let response)? = try local.lookup(url: url)?.record else { throw Missing() }
        return Array(try local.body(response.body))
    }

    struct Missing: Error {}
}

/// Fast-failing settings for tests: short delays, few retries.
func testConfiguration(retries: Int = 3, readTimeout: Double = 10) -> RemoteConfiguration {
    var configuration = RemoteConfiguration()
    configuration.retries = retries
    configuration.retryDelay = 0.01
    configuration.readTimeout = readTimeout
    configuration.connectTimeout = 5
    configuration.trustRoots = .file(RangeServer.certificatePath)
    return configuration
}

/// The body of `url` read through `reader`.
func remoteBody(_ reader: ArchiveReader, _ url: String) throws -> [UInt8] {
    guard case .response(let response)? = try reader.lookup(url: url)?.record else { throw Fixture.Missing() }
    return Array(try reader.body(response.body))
}

/// A local byte source that counts its reads (the baseline a remote source's requests are
/// compared with).
final class ReadCounter: ByteSource {
    private let inner: any ByteSource
    private let reads = Mutex(0)

    init(_ inner: any ByteSource) { self.inner = inner }

    var size: UInt64 { inner.size }
    var count: Int { reads.withLock { $0 } }

    func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        reads.withLock { $0 += 1 }
        return try inner.read(at: offset, count: count)
    }

    func reset() { reads.withLock { $0 = 0 } }
}
