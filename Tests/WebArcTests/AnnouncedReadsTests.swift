import Foundation
import Synchronization
import Testing
import WebArcTestSupport

@testable import WebArc

/// What a reader announces to its byte source before reading a body (``ByteSource/willRead(_:)``):
/// a remote source starts each announced group at once, so a chunk's dictionary or reference must
/// be announced too, or it costs one more round trip.
@Suite("Announced reads")
struct AnnouncedReadsTests {
    /// A file that logs announcements and reads in the order they happen.
    final class Recorder: ByteSource {
        enum Event: Equatable {
            case announced([Range<UInt64>])
            case read(Range<UInt64>)
        }

        private let inner: FileByteSource
        private let log = Mutex<[Event]>([])

        init(path: String) throws { inner = try FileByteSource(path: path) }

        var size: UInt64 { inner.size }
        var events: [Event] { log.withLock { $0 } }

        func read(at offset: UInt64, count: Int) throws -> [UInt8] {
            log.withLock { $0.append(.read(offset..<offset + UInt64(count))) }
            return try inner.read(at: offset, count: count)
        }

        func willRead(_ extents: [Range<UInt64>]) { log.withLock { $0.append(.announced(extents)) } }

        func reset() { log.withLock { $0 = [] } }
    }

    static func extent(_ chunk: ChunkEntry) -> Range<UInt64> {
        chunk.offset..<chunk.offset + UInt64(chunk.storedLength)
    }

    /// Announced extents up to the first read of `extent`, flattened.
    static func announcedBeforeReading(_ extent: Range<UInt64>, in events: [Recorder.Event]) -> [Range<UInt64>] {
        var announced: [Range<UInt64>] = []
        for event in events {
            switch event {
            case .announced(let extents): announced += extents
            case .read(let range) where range.overlaps(extent): return announced
            case .read: continue
            }
        }
        return announced
    }

    @Test(
        "a codec-2 body's dictionary chunk and a codec-3 body's reference are announced with the body's chunks, before either is read"
    )
    func referencesAnnounced() throws {
        let folder = try TemporaryFolder()
        _ = try PackPipelineTests.makeSite(at: folder.file("site"))
        for zstd in [nil, 3] as [Int?] {
            let path = folder.file("site-\(zstd ?? 0).webarc")
            _ = try SitePacker(options: .init(zstdLevel: zstd)).pack(folder: folder.file("site"), to: path)
            let source = try Recorder(path: path)
            let reader = try ArchiveReader(source: source, path: path)
            let entry = try #require(try reader.lookup(url: "http://localhost/p002.html"))
            guard case .response(let response) = entry.record else {
                Issue.record("p002.html is not a response")
                return
            }
            let body = try reader.bodyEntry(response.body)
            let chunk = try #require(body.chunks.first)
            let reference = try #require(zstd == nil ? chunk.dictionary : chunk.reference, "codec \(chunk.codecValue)")
            source.reset()
            _ = try reader.body(response.body)
            let announced = Self.announcedBeforeReading(Self.extent(reference), in: source.events)
            #expect(announced.contains(Self.extent(reference)), "the reference is announced before it is read")
            #expect(
                announced.contains(Self.extent(chunk)), "the body's chunk is announced before the reference is read")
            // Read again: the reference is kept, so it is neither announced nor read a second time.
            source.reset()
            _ = try reader.body(response.body)
            #expect(!source.events.contains(.announced([Self.extent(reference)])))
            #expect(!source.events.contains(.read(Self.extent(reference))))
        }
    }
}
