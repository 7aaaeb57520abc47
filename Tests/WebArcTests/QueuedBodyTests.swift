import Testing
import WebArcTestSupport

@testable import WebArc

/// The body entries `verify` queues for its body checks (`QueuedBody`): spilled to a temporary
/// file and read back equal, in file order.
@Suite("Queued bodies")
struct QueuedBodyTests {
    /// The bodies of a small archive of text pages (coded against dictionaries) and binary ones.
    private func bodies(in folder: TemporaryFolder) throws -> [BodyEntry] {
        var random = SeededGenerator(seed: 41)
        let pages: [(String, [UInt8])] = (0..<60).map {
            ("http://localhost/\($0)", $0 % 3 == 0 ? random.bytes(200 + 37 * $0) : random.text(500 + 211 * $0))
        }
        let path = try makeArchive(at: folder.file("queued.webarc"), pages: pages)
        var bodies: [BodyEntry] = []
        try ArchiveReader(path: path).forEachBody { bodies.append($0) }
        return bodies
    }

    @Test("a queued body read back from spilled runs equals the entry queued, where it was read included")
    func roundTrip() throws {
        let folder = try TemporaryFolder()
        var bodies = try bodies(in: folder)
        // Entries whose chunks name a dictionary, and a delta reference that names one in turn.
        let digest = SHA256Hash.of(Array("x".utf8))
        let dictionary = ChunkEntry(offset: 16, storedLength: 5, rawLength: 9, codec: .lz4, digest: digest)
        let coded = ChunkEntry(
            offset: 21, storedLength: 5, rawLength: 9, codec: .lz4Dictionary, digest: digest, dictionary: dictionary)
        let delta = ChunkEntry(
            offset: 26, storedLength: 4, rawLength: 9, codec: .zstdDelta, layer: 1, digest: digest, dictionary: coded)
        for (number, chunks) in [[coded], [delta, coded]].enumerated() {
            var body = BodyEntry(
                reference: BodyReference(digest: BodyDigest.ofEmpty, variant: UInt32(number + 1)), length: 18,
                sha256: digest, chunks: chunks)
            body.origin = BodyEntry.Origin(page: 4096 + UInt64(number), position: 12 + number, length: 68 + number)
            bodies.append(body)
        }
        // Runs of about two values: every value is written to the file and read back.
        let sort = SpilledSort<QueuedBody>(prefix: "webarc-test-queue", runBytes: 400)
        for (sequence, body) in bodies.enumerated() { try sort.append(QueuedBody(entry: body, sequence: sequence)) }
        var sorted = try sort.sorted()
        var readBack: [QueuedBody] = []
        while let body = try sorted.next() { readBack.append(body) }
        #expect(readBack.count == bodies.count)
        for body in readBack {
            #expect(body.entry == bodies[body.sequence], "body \(body.sequence)")
            #expect(body.entry.origin == bodies[body.sequence].origin, "body \(body.sequence)")
        }
    }

    @Test("queued bodies come back in file order (by first chunk), bodies of the same offset in queue order")
    func fileOrder() throws {
        let folder = try TemporaryFolder()
        let bodies = try bodies(in: folder)
        // Each body twice, as two leaves' entries naming one chunk would be.
        let sort = SpilledSort<QueuedBody>(prefix: "webarc-test-queue", runBytes: 1000)
        for (sequence, body) in (bodies + bodies).enumerated() {
            try sort.append(QueuedBody(entry: body, sequence: sequence))
        }
        var sorted = try sort.sorted()
        var readBack: [QueuedBody] = []
        while let body = try sorted.next() { readBack.append(body) }
        let expected = (bodies + bodies).indices.sorted { a, b in
            let (left, right) = (bodies[a % bodies.count].firstChunkOffset, bodies[b % bodies.count].firstChunkOffset)
            return left != right ? left < right : a < b
        }
        #expect(readBack.map(\.sequence) == expected)
        #expect(Set(bodies.map(\.firstChunkOffset)).count == bodies.count, "the bodies share no chunk")
    }
}
