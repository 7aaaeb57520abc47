import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import WebArc

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A remote archive downloaded front to back with one GET into an unlinked temporary file, read
/// while it arrives: for a reader that touches every byte (`webarc verify URL`), each byte crosses
/// the network once, in one long sequential transfer, at the speed of a plain download.
///
/// ```swift
/// let source = try DownloadedByteSource(url: "https://cdn.example.com/site.webarc")
/// let report = ArchiveVerifier.verify(try ArchiveReader(source: source, path: source.url))
/// try source.finish()                            // the transfer's own error, if any
/// ```
///
/// A read waits until the bytes it needs have arrived. A transfer cut short resumes where it
/// stopped (`Range: bytes=N-` with `If-Match`), up to ``RemoteConfiguration/retries`` times; a
/// file replaced meanwhile fails with ``RemoteError/changed(url:reason:)``. Needs temporary disk
/// space for the whole file (`TMPDIR`). No `Range` support is needed unless a transfer resumes.
public final class DownloadedByteSource: ByteSource, @unchecked Sendable {
    /// The URL as given.
    public let url: String
    /// The file's length, from the response's `Content-Length`.
    public var size: UInt64 { length }
    /// Set once, in `init`, before any read.
    private var length: UInt64 = 0
    private let descriptor: Int32
    private let client: RemoteClient
    /// Guards `received`, `failure` and `finished`; readers wait on it.
    private let condition = NSCondition()
    private var received: UInt64 = 0
    private var failure: (any Error)?
    private var finished = false
    private var validator = Validator(etag: nil, lastModified: nil)

    /// Starts the download and returns once its response head has arrived.
    ///
    /// - Throws: ``RemoteError`` (`badURL`, `notFound`, `status`, `badResponse` when the length is
    ///   not given, `timedOut`, `connection`, `tls`); `io` when no temporary file can be made.
    public init(url: String, configuration: RemoteConfiguration = .init()) throws {
        guard HTTPByteSource.isRemote(url) else { throw RemoteError.badURL(url: url) }
        self.url = url
        client = RemoteClient(configuration: configuration)
        var template = Array((NSTemporaryDirectory() + "/webarc-download-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw WebArcError.io(path: NSTemporaryDirectory(), operation: "create temporary file", errno: errno) }
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        descriptor = fd
        let head = client.client.eventLoopGroup.any().makePromise(of: UInt64.self)
        let sink = Sink(url: url, descriptor: fd, head: head)
        transfer(sink, attempt: 0, retries: configuration.retries)
        length = try head.futureResult.wait()
    }

    deinit { close(descriptor) }

    /// Waits for the whole transfer.
    ///
    /// - Throws: the error that ended it early.
    public func finish() throws {
        condition.lock()
        defer { condition.unlock() }
        while !finished { condition.wait() }
        if let failure { throw failure }
    }

    public func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count > 0 else { return [] }
        guard offset <= size, UInt64(count) <= size - offset else {
            throw WebArcError.truncated(
                section: "file", offset: offset, needed: UInt64(count), available: size > offset ? size - offset : 0)
        }
        let end = offset + UInt64(count)
        condition.lock()
        while received < end && !finished { condition.wait() }
        let arrived = received
        let failure = failure
        condition.unlock()
        if arrived < end { throw failure ?? RemoteError.connection(url: url, reason: "transfer ended at byte \(arrived) of \(size)") }
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            let result = buffer.withUnsafeMutableBytes { raw in
                pread(descriptor, raw.baseAddress! + done, count - done, off_t(offset) + off_t(done))
            }
            if result < 0 {
                if errno == EINTR { continue }
                throw WebArcError.io(path: url, operation: "read downloaded copy", errno: errno)
            }
            if result == 0 { throw WebArcError.io(path: url, operation: "read downloaded copy", errno: EIO) }
            done += result
        }
        return buffer
    }

    /// Runs one GET (the whole file, or the rest of it when resuming) and resumes after a failure
    /// that left bytes in place.
    private func transfer(_ sink: Sink, attempt: Int, retries: Int) {
        condition.lock()
        let from = received
        let validator = validator
        condition.unlock()
        let range: ByteRange? = from == 0 ? nil : .span(from, Int(sink.expectedSize - from))
        sink.prepare(from: from, owner: self)
        client.get(url, range: range, validator: from == 0 ? nil : validator, maxBytes: Int.max, stream: sink).whenComplete { result in
            switch result {
            case .success(let response) where (200..<300).contains(response.status) && sink.complete:
                self.end(nil)
            case .success(let response):
                let error: RemoteError = switch response.status {
                case 404, 410: .notFound(url: self.url, status: response.status)
                case 412: .changed(url: self.url, reason: "412 Precondition Failed when resuming")
                case 200..<300: .connection(url: self.url, reason: "transfer ended at byte \(sink.position) of \(sink.expectedSize)")
                default: .status(url: self.url, status: response.status, range: range?.description)
                }
                sink.failHead(error)
                self.end(error)
            case .failure(let error):
                sink.failHead(error)
                let resumable = (error as? RemoteError).map(RemoteClient.isRetryable) ?? false
                if resumable, sink.position > from, attempt < retries {
                    self.transfer(sink, attempt: attempt + 1, retries: retries)
                } else {
                    self.end(error)
                }
            }
        }
    }

    fileprivate func advance(to position: UInt64, validator: Validator?) {
        condition.lock()
        received = position
        if let validator { self.validator = validator }
        condition.broadcast()
        condition.unlock()
    }

    private func end(_ error: (any Error)?) {
        condition.lock()
        failure = error
        finished = true
        condition.broadcast()
        condition.unlock()
    }
}

/// Writes response bodies into the temporary file at their place; called by the client's
/// delegate on one event loop, one call at a time (hence `@unchecked Sendable`).
private final class Sink: BodyStream, @unchecked Sendable {
    let url: String
    let descriptor: Int32
    let head: EventLoopPromise<UInt64>
    private var headSent = false
    weak var owner: DownloadedByteSource?
    /// Where the next byte goes.
    private(set) var position: UInt64 = 0
    /// Where the current response starts.
    private var start: UInt64 = 0
    private(set) var expectedSize: UInt64 = 0
    private var validator: Validator?
    private var wrote = false

    init(url: String, descriptor: Int32, head: EventLoopPromise<UInt64>) {
        self.url = url
        self.descriptor = descriptor
        self.head = head
    }

    var hasData: Bool { wrote }
    var complete: Bool { headSent && position == expectedSize }

    func prepare(from: UInt64, owner: DownloadedByteSource) {
        self.owner = owner
        start = from
        position = from
        wrote = false
    }

    func begin(status: Int, headers: HTTPHeaders) throws {
        if start == 0 {
            guard status == 200, let length = headers.first(name: "content-length").flatMap(UInt64.init) else {
                throw RemoteError.badResponse(url: url, reason: "HTTP \(status) without Content-Length for the whole file")
            }
            expectedSize = length
            validator = Validator(headers)
            owner?.advance(to: 0, validator: validator)
            if !headSent {
                headSent = true
                head.succeed(length)
            }
        } else {
            if let reason = validator?.mismatch(headers) { throw RemoteError.changed(url: url, reason: reason) }
            guard status == 206, let range = ContentRange(headers.first(name: "content-range")), range.start == start,
                range.total == expectedSize
            else {
                throw RemoteError.changed(url: url, reason: "HTTP \(status) \(headers.first(name: "content-range") ?? "") when resuming at byte \(start)")
            }
        }
    }

    func write(_ buffer: ByteBuffer) throws {
        guard position + UInt64(buffer.readableBytes) <= expectedSize else {
            throw RemoteError.badResponse(url: url, reason: "more bytes than Content-Length \(expectedSize)")
        }
        try buffer.withUnsafeReadableBytes { raw in
            var done = 0
            while done < raw.count {
                let result = pwrite(descriptor, raw.baseAddress! + done, raw.count - done, off_t(position) + off_t(done))
                if result < 0 {
                    if errno == EINTR { continue }
                    throw WebArcError.io(path: url, operation: "write temporary file", errno: errno)
                }
                done += result
            }
        }
        position += UInt64(buffer.readableBytes)
        wrote = true
        owner?.advance(to: position, validator: nil)
    }

    func failHead(_ error: any Error) {
        if !headSent {
            headSent = true
            head.fail(error)
        }
    }
}
