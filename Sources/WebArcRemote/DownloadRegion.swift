import Foundation
import NIOCore
import NIOHTTP1
import WebArc

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A span of the remote file that one streaming GET fills front to back, in ``DownloadedByteSource``.
///
/// Its fields change only under the source's lock. The suffix region's span is unknown until its
/// response head gives the file's length; the stream region (from byte 0, asked for as
/// `bytes=0-`) ends at ``unknownEnd`` until then. A region's end may move down while its transfer
/// runs, never below what it received: its transfer stops there (``RegionSink``) and the bytes
/// after it are another region's.
final class DownloadRegion: @unchecked Sendable {
    /// The end of a region whose length the server has not said yet.
    static let unknownEnd = UInt64.max

    /// First byte; for the suffix region, set by its response head.
    var start: UInt64
    /// One past the last byte.
    var end: UInt64
    /// Bytes `[start, received)` are in the temporary file.
    var received: UInt64
    /// Set when the region was asked for as the file's last `suffix` bytes, until its head arrives.
    var suffix: Int?
    /// Set once its transfer ended: nil when it succeeded.
    var finished: Result<Void, any Error>?
    /// The smallest `received` a blocked reader waits for (``unknownEnd`` when none waits): the
    /// transfer wakes readers when it gets there, not at every part.
    var wakeAt = DownloadRegion.unknownEnd

    init(_ range: Range<UInt64>) {
        start = range.lowerBound
        end = range.upperBound
        received = range.lowerBound
    }

    init(suffix: Int) {
        start = 0
        end = 0
        received = 0
        self.suffix = suffix
    }

    /// A region from `start` to the end of the file, whatever its length.
    init(from start: UInt64) {
        self.start = start
        end = Self.unknownEnd
        received = start
    }

    var isComplete: Bool { suffix == nil && received >= end }

    /// True while its transfer runs and bytes before `offset` are still to come through it.
    func streams(past offset: UInt64) -> Bool {
        finished == nil && suffix == nil && start <= offset && received < offset && end > offset
    }

    /// Ends the region at `offset` (not below what it received): its transfer stops there.
    func cut(at offset: UInt64) {
        end = max(received, min(end, offset))
    }

    /// The range the next request asks for: the rest of the region.
    var request: ByteRange {
        if let suffix { return .suffix(suffix) }
        if end == Self.unknownEnd { return .from(received) }
        return .span(received, Int(end - received))
    }
}

/// The file a download lands in: an unlinked ``ScratchFile`` (`webarc-download-…`), closed when
/// the last transfer writing into it is gone.
extension ScratchFile {
    /// An unlinked file for one download.
    ///
    /// - Throws: ``WebArc/WebArcError/io(path:operation:errno:)`` when `TMPDIR` has no room for one.
    static func forDownload() throws -> ScratchFile {
        try ScratchFile(prefix: "webarc-download", unlinked: true)
    }

    /// Writes all of `buffer` at `offset`; errors name the URL downloaded.
    func write(_ buffer: ByteBuffer, at offset: UInt64, url: String) throws {
        if let code = buffer.withUnsafeReadableBytes({ FileWriting.writeAll($0, to: descriptor, at: offset) }) {
            throw WebArcError.io(path: url, operation: .transferring("write temporary file"), errno: code)
        }
    }

    /// Reads exactly `count` bytes at `offset` (they were written before).
    func read(at offset: UInt64, count: Int, url: String) throws -> [UInt8] {
        try FileByteSource.read(descriptor, at: offset, count: count, path: url)
    }
}

/// Writes one region's response bodies into the temporary file at their place. The client's
/// delegate calls it on one event loop, one call at a time (hence `@unchecked Sendable`); what it
/// shares with readers goes through its source's lock.
final class RegionSink: BodyStream, @unchecked Sendable {
    /// Ends a whole-file answer (a server that ignores `Range`) once the region is full.
    struct RegionFull: Error {}

    let region: DownloadRegion
    let file: ScratchFile
    /// Held until the transfer ends, so that the temporary file and the lock outlive it.
    let owner: DownloadedByteSource
    /// Where the next byte goes.
    private(set) var position: UInt64 = 0
    /// Bytes of the current response to drop before the region starts.
    private var skip: UInt64 = 0
    private var wrote = false

    init(region: DownloadRegion, file: ScratchFile, owner: DownloadedByteSource) {
        self.region = region
        self.file = file
        self.owner = owner
    }

    var hasData: Bool { wrote }

    var isDone: Bool { owner.withLock { region.isComplete } }

    /// Before each attempt: start where the region's bytes end.
    func prepare() {
        position = owner.withLock { region.received }
        skip = 0
        wrote = false
    }

    func begin(status: Int, headers: HTTPHeaders) throws {
        let range = status == 206 ? ContentRange(headers.first(name: "content-range")) : nil
        let total = range?.total ?? (status == 200 ? headers.first(name: "content-length").flatMap(UInt64.init) : nil)
        guard let total, status == 200 || range != nil else {
            throw RemoteError.badResponse(
                url: owner.url, reason: "HTTP \(status) without Content-Range or Content-Length")
        }
        let first = range?.start ?? 0
        let from = try owner.accept(headers: headers, first: first, total: total, wholeFile: status == 200, for: region)
        guard first <= from else {
            throw RemoteError.badResponse(
                url: owner.url,
                reason: "Content-Range \(headers.first(name: "content-range") ?? "") for a read from byte \(from)")
        }
        // A whole file or a longer suffix than this region's (a stream before it): drop the front.
        skip = from - first
        position = from
        // Nothing left to receive (a tail whose bytes the stream brings): end the request now.
        if isDone { throw RegionFull() }
    }

    func write(_ buffer: ByteBuffer) throws {
        var buffer = buffer
        if skip > 0 {
            let dropped = Int(min(skip, UInt64(buffer.readableBytes)))
            buffer.moveReaderIndex(forwardBy: dropped)
            skip -= UInt64(dropped)
        }
        // The end may have moved below this part's first byte since the last one (``DownloadRegion/cut(at:)``).
        let end = owner.withLock { region.end }
        let room = end > position ? Int(min(UInt64(buffer.readableBytes), end - position)) : 0
        let full = room < buffer.readableBytes
        if room > 0 {
            try file.write(buffer.getSlice(at: buffer.readerIndex, length: room)!, at: position, url: owner.url)
            position += UInt64(room)
            wrote = true
            owner.advance(region, to: position)
        }
        if full { throw RegionFull() }
    }
}
