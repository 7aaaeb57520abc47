import Foundation
import WebArc

/// Everything a consumer of an archive does with it, on bytes in memory: open, list every record,
/// look up each key found and a few fixed URLs, stream every body, verify. Errors are the expected
/// outcome of hostile input and are ignored; a trap, a hang or an allocation in proportion to a
/// declared size is what the fuzzer finds.
public enum ArchiveExercise {
    /// URLs looked up in every archive, whatever it lists.
    static let fixedURLs = [
        "http://localhost/", "http://example.com/", "https://example.com/index.html", "http://localhost/a?b=c",
    ]

    /// Runs every read of the public API over `bytes`.
    public static func run(_ bytes: [UInt8]) {
        guard let reader = try? ArchiveReader(source: DataByteSource(Data(bytes)), path: "fuzz.webarc") else { return }
        _ = try? reader.metadata
        _ = try? reader.appendixBytes()
        _ = try? reader.validateBases()
        _ = reader.recordCount + reader.bodyCount
        _ = reader.storedBodyBytes &+ reader.indexBytes
        var keys: [String] = []
        var bodies: [BodyReference] = []
        _ = try? reader.forEachEntry { entry in
            keys.append(entry.key)
            _ = (entry.record.status, entry.record.headers.count, entry.record.captureDate, entry.record.request.url)
            _ = try? entry.record.request.canonicalKey()
            if case .response(let response) = entry.record { bodies.append(response.body) }
            if keys.count >= 4096 { throw CancellationError() }
        }
        for key in keys.prefix(256) { _ = try? reader.lookup(key: key) }
        for url in fixedURLs { _ = try? reader.lookup(url: url) }
        _ = try? reader.forEachBody { entry in
            bodies.append(entry.reference)
            if bodies.count >= 8192 { throw CancellationError() }
        }
        for reference in bodies.prefix(64) { stream(reference, in: reader) }
        _ = try? reader.chunkCount
        _ = ArchiveVerifier.verify(reader)
        exerciseUpdate(reader)
    }

    /// What `apply` reads of an update before any base is needed: the writer recipe's order
    /// (spec §13.2), the target, and the layered view of the archive alone.
    static func exerciseUpdate(_ reader: ArchiveReader) {
        guard let metadata = try? reader.metadata else { return }
        let count = min(reader.recordCount, 1 << 16)
        _ = try? metadata.writer?.order.positions(count: count)
        _ = try? metadata.target?.archive.writer?.order.positions(count: count)
        guard metadata.bases.isEmpty, let stack = try? LayerStack([reader]) else { return }
        var seen = 0
        _ = try? stack.forEachKey { _, records in
            seen += records.entries.count
            if seen >= 4096 { throw CancellationError() }
        }
    }

    /// Streams a body whole (checking its digests) and a short range at each end, holding one
    /// chunk at a time.
    static func stream(_ reference: BodyReference, in reader: ArchiveReader) {
        guard let entry = try? reader.bodyEntry(reference) else { return }
        try? reader.verifyBody(entry)
        let length = entry.length
        _ = try? reader.body(reference, range: 0..<min(length, 16))
        if length > 0 { _ = try? reader.body(reference, range: (length - 1)..<length) }
        if length < UInt64.max { _ = try? reader.body(reference, range: length..<(length + 1)) }
    }
}
