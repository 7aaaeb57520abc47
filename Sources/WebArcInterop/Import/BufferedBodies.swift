import WebArc

/// Bodies an input holds in memory (HAR text, `.webarchive` data), stored on request with the
/// content codings a browser already removed dropped (``ContentCoding/decode(_:codings:wire:)`` with `wire: false`).
final class BufferedBodies {
    private var bodies: [[UInt8]] = []
    private var codings: [[String]] = []

    /// Keeps a body and its `Content-Encoding` tokens; returns its number.
    func append<C: Collection>(_ body: C, codings: [String]) -> Int where C.Element == UInt8 {
        bodies.append(Array(body))
        self.codings.append(codings)
        return bodies.count - 1
    }

    /// Stores the bodies numbered `indices`, calling `beforeEach` just before each.
    func store(
        _ indices: [Int], in writer: ArchiveWriter, beforeEach: (Int, [Int: StoredPayload]) throws -> Void
    ) throws -> [Int: StoredPayload] {
        var result: [Int: StoredPayload] = [:]
        for index in indices {
            try beforeEach(index, result)
            let outcome = try ContentCoding.decode(try BodySpool(bodies[index]), codings: codings[index], wire: false)
            result[index] = StoredPayload(body: try outcome.body.store(in: writer), remaining: outcome.remaining)
        }
        return result
    }
}

/// An input read whole into memory in one pass (HAR, `.webarchive`), its bodies kept until stored.
protocol BufferedImporter: BodyProvider {
    var buffered: BufferedBodies { get }
    /// Parses a file's contents (decompressed when it `isGzip`); returns how many entries or
    /// resources it read and the captures they gave. `path` names the file in errors.
    func read(
        _ contents: [UInt8], path: String, isGzip: Bool, context: ImportContext
    ) throws -> (records: Int, captures: [Capture])
}

extension BufferedImporter {
    func storeBodies(
        _ indices: [Int], in writer: ArchiveWriter, context: ImportContext,
        beforeEach: (Int, [Int: StoredPayload]) throws -> Void
    ) throws -> [Int: StoredPayload] {
        try buffered.store(indices, in: writer, beforeEach: beforeEach)
    }
}
