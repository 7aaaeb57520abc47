import Foundation
import Synchronization

@testable import WebArc

/// A byte source that counts the reads made through it (and refuses none), to pin how much a
/// reader touches.
final class CountingByteSource: ByteSource {
    private let inner: any ByteSource
    private let log = Mutex<[(offset: UInt64, count: Int)]>([])
    let openingTailLength: Int

    init(_ inner: any ByteSource, openingTailLength: Int = 65_536) {
        self.inner = inner
        self.openingTailLength = openingTailLength
    }

    var size: UInt64 { inner.size }

    func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        log.withLock { $0.append((offset, count)) }
        return try inner.read(at: offset, count: count)
    }

    /// The reads so far.
    var reads: [(offset: UInt64, count: Int)] { log.withLock { $0 } }

    func reset() { log.withLock { $0.removeAll() } }
}

/// Archive bytes as an array, with helpers to re-seal a changed trailer.
struct ArchiveBytes {
    var bytes: [UInt8]

    init(path: String) throws { bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    var trailerOffset: Int { bytes.count - Trailer.size }

    /// The trailer as stored.
    func trailer() throws -> Trailer {
        try Trailer(parsing: Array(bytes[trailerOffset...]), at: UInt64(trailerOffset), fileLength: UInt64(bytes.count))
    }

    /// Replaces the trailer with `trailer` re-encoded (its check recomputed).
    mutating func seal(_ trailer: Trailer) {
        bytes.replaceSubrange(trailerOffset..., with: trailer.serialize())
    }

    func write(to path: String) throws { try Data(bytes).write(to: URL(fileURLWithPath: path)) }
}
