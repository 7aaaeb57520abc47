import Crypto
import Foundation
import Synchronization
import Testing
import WebArcTestSupport

@testable import WebArc

/// The sixteen-lane MD5 (`MD5Lanes`) against swift-crypto's, and `verify` with bodies checked in
/// lanes (``BodyLaneChecker``) against `verify` with bodies checked one by one: same problems,
/// whatever the damage.
@Suite("Body lane checker")
struct BodyLaneCheckerTests {
    // The sixteen-lane kernel needs AVX-512F, and a portable run (WEBARC_PORTABLE=1) never uses
    // it: verify then uses Insecure.MD5 alone.
    @Test(
        "sixteen lanes hash as swift-crypto's MD5: any lengths, blocks fed in steps, idle lanes untouched",
        .enabled(if: MD5Lanes.isAvailable, "needs AVX-512F and a run that is not portable"))
    func lanesMatchMD5() throws {
        var random = SeededGenerator(seed: 19)
        for round in 0..<40 {
            // Lengths around block and padding edges first, then random ones.
            let edges = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4096, 70_001]
            let messages = (0..<MD5Lanes.count).map { lane in
                random.bytes(round == 0 ? edges[lane] : Int.random(in: 0...5000, using: &random))
            }
            Self.expectLanesMatchMD5(messages, alone: false, round: round, using: &random)
        }
    }

    @Test("a lane advanced alone (scalar blocks) between steps of all sixteen hashes as swift-crypto's MD5")
    func laneAloneMatchesMD5() throws {
        var random = SeededGenerator(seed: 31)
        for round in 0..<20 {
            let messages = (0..<MD5Lanes.count).map { _ in random.bytes(Int.random(in: 0...9000, using: &random)) }
            Self.expectLanesMatchMD5(messages, alone: true, round: round, using: &random)
        }
    }

    /// Hashes one message per lane with swift-crypto's MD5 as the reference (``expectLanesMatch``).
    private static func expectLanesMatchMD5(
        _ messages: [[UInt8]], alone: Bool, round: Int, using random: inout SeededGenerator
    ) {
        expectLanesMatch(MD5Lanes(), messages, alone: alone, round: round, using: &random) {
            BodyDigest(Insecure.MD5.hash(data: $0))
        }
    }

    @Test(
        "from a file, bodies over 1 MiB are checked first, longest first, the rest in file order; from a download, all in file order"
    )
    func checkingOrder() throws {
        let folder = try TemporaryFolder()
        var random = SeededGenerator(seed: 37)
        let pages = [
            ("http://localhost/a", random.text(5000)), ("http://localhost/b", random.bytes((1 << 20) + 10)),
            ("http://localhost/c", random.text(300)), ("http://localhost/d", random.bytes(3 << 20)),
            ("http://localhost/e", random.bytes(1 << 20)),
        ]
        let path = try makeArchive(at: folder.file("order.webarc"), pages: pages)
        var bodies: [BodyEntry] = []
        try ArchiveReader(path: path).forEachBody { bodies.append($0) }
        let fileOrder = bodies.indices.sorted { bodies[$0].firstChunkOffset < bodies[$1].firstChunkOffset }
        #expect(Verification.checkingOrder(bodies, inFileOrder: true) == fileOrder)
        let local = Verification.checkingOrder(bodies, inFileOrder: false)
        #expect(local.prefix(2).map { bodies[$0].length } == [3 << 20, (1 << 20) + 10])
        #expect(Array(local.dropFirst(2)) == fileOrder.filter { bodies[$0].length <= 1 << 20 })
    }

    // Lanes need AVX-512F and a run that is not portable (see lanesMatchMD5).
    @Test(
        "verify finds the same problems with lanes as one body at a time, for a flipped byte anywhere in the body data",
        .enabled(if: MD5Lanes.isAvailable, "needs AVX-512F and a run that is not portable"))
    func lanesMatchOneByOne() throws {
        let folder = try TemporaryFolder()
        var random = SeededGenerator(seed: 23)
        // Bodies of one chunk and of several (the last one short), compressible and not, more
        // bodies than lanes, and an empty one.
        var pages: [(String, [UInt8])] = (0..<40).map {
            ("http://localhost/\($0)", $0 % 2 == 0 ? random.text(100 + 997 * $0) : random.bytes(3 * $0))
        }
        pages.append(("http://localhost/long", random.bytes(2 * ChunkEntry.maxRawLength + 777)))
        pages.append(("http://localhost/long-text", random.text(3 * ChunkEntry.maxRawLength)))
        // Longer than its fair share of the lanes' work: advanced alone, a chunk at a time.
        pages.append(("http://localhost/longest", random.bytes(6 * ChunkEntry.maxRawLength + 5)))
        pages.append(("http://localhost/empty", []))
        let path = try makeArchive(at: folder.file("lanes.webarc"), pages: pages)
        let clean = try ArchiveReader(path: path)
        #expect(ArchiveVerifier.verify(clean, laneHashing: true).problems.isEmpty)
        var chunks: [ChunkEntry] = []
        try clean.forEachBody { chunks += $0.chunks }
        let archive = try ArchiveBytes(path: path)
        for (number, chunk) in chunks.enumerated() where number % 3 == 0 || chunk.rawLength > 100_000 {
            var damaged = archive
            damaged.bytes[Int(chunk.offset + UInt64(chunk.storedLength) / 3)] ^= 0x10
            let damagedPath = folder.file("damaged-\(number).webarc")
            try damaged.write(to: damagedPath)
            let reader = try ArchiveReader(path: damagedPath)
            let inLanes = ArchiveVerifier.verify(reader, laneHashing: true).problems
            let oneByOne = ArchiveVerifier.verify(reader, laneHashing: false).problems
            #expect(!inLanes.isEmpty, "chunk at \(chunk.offset): damage went unnoticed")
            #expect(inLanes == oneByOne, "chunk at \(chunk.offset)")
            #expect(inLanes.contains { $0.offset == chunk.offset }, "\(inLanes)")
        }
    }

    @Test(
        "a flipped byte in a stored chunk (no decoding to fail) is a chunk-digest problem at that chunk, in lanes and one by one; the first chunk of a long body too, whose digest comes from the body hash"
    )
    func storedChunkDigest() throws {
        let folder = try TemporaryFolder()
        var random = SeededGenerator(seed: 29)
        // Incompressible, so stored: the damage reaches the hashes. The second body has three
        // chunks, the last one short; the first is one short chunk.
        let pages = [
            ("http://localhost/short", random.bytes(1000)),
            ("http://localhost/long", random.bytes(2 * ChunkEntry.maxRawLength + 100)),
        ]
        let path = try makeArchive(at: folder.file("stored.webarc"), pages: pages)
        let clean = try ArchiveReader(path: path)
        for lanes in [true, false] where lanes == false || MD5Lanes.isAvailable {
            #expect(ArchiveVerifier.verify(clean, laneHashing: lanes).problems.isEmpty, "lanes \(lanes)")
        }
        var bodies: [BodyEntry] = []
        try clean.forEachBody { bodies.append($0) }
        #expect(bodies.map(\.chunks.count).sorted() == [1, 3])
        let archive = try ArchiveBytes(path: path)
        for body in bodies {
            for (index, chunk) in body.chunks.enumerated() {
                #expect(chunk.codec == .raw)
                var damaged = archive
                damaged.bytes[Int(chunk.offset) + Int(chunk.storedLength) - 1] ^= 0x01
                let damagedPath = folder.file("damaged-\(chunk.offset).webarc")
                try damaged.write(to: damagedPath)
                let reader = try ArchiveReader(path: damagedPath)
                for lanes in [true, false] where lanes == false || MD5Lanes.isAvailable {
                    let problems = ArchiveVerifier.verify(reader, laneHashing: lanes).problems
                    #expect(problems.map(\.code) == ["chunk-digest"], "lanes \(lanes): \(problems)")
                    #expect(problems.first?.offset == chunk.offset, "lanes \(lanes), chunk \(index)")
                    #expect(problems.first?.check == "chunks")
                    #expect(
                        problems.first?.url == "http://localhost/\(body.length > 1000 ? "long" : "short")",
                        "\(problems)")
                }
            }
        }
    }

    @Test(
        "chunks of another writer's lengths (short ones before a body's last: bytes carried over between chunks) check in lanes as one by one, damage in any chunk found at that chunk"
    )
    func unevenChunks() throws {
        let folder = try TemporaryFolder()
        var random = SeededGenerator(seed: 61)
        let path = folder.file("uneven.webarc")
        let writer = try ArchiveWriter(path: path)
        // Incompressible, so stored raw: a flipped byte reaches the hashes. The first chunk of
        // "first-short" is short too, so its body hash cannot start from the lanes.
        let bodies: [(String, [Int])] = [
            ("whole-then-short", [4096, 1000, 70_001, 64]), ("first-short", [100, 5000, 129]),
            ("one-block-each", [64, 64, 64]),
        ]
        for (name, lengths) in bodies {
            let bytes = random.bytes(lengths.reduce(0, +))
            var chunks: [ChunkEncoder.Encoded] = []
            var start = 0
            for length in lengths {
                chunks.append(bytes[start..<start + length].withUnsafeBytes { ChunkEncoder.encode($0, level: 1) })
                start += length
            }
            let prepared = PreparedBody(
                digest: BodyDigest(Insecure.MD5.hash(data: bytes)), sha256: SHA256Hash.of(bytes),
                length: UInt64(bytes.count), chunks: chunks)
            let body = try writer.addBody(prepared)
            try writer.add(
                ResponseRecord(
                    request: RequestRecord(url: "http://localhost/\(name)"), mimeType: "application/octet-stream",
                    body: body))
        }
        try writer.finish()
        let clean = try ArchiveReader(path: path)
        var entries: [BodyEntry] = []
        try clean.forEachBody { entries.append($0) }
        #expect(
            Set(entries.map { $0.chunks.map(\.rawLength) }) == [
                [4096, 1000, 70_001, 64], [100, 5000, 129], [64, 64, 64],
            ])
        for lanes in [true, false] where lanes == false || MD5Lanes.isAvailable {
            #expect(ArchiveVerifier.verify(clean, laneHashing: lanes).problems.isEmpty, "lanes \(lanes)")
        }
        let archive = try ArchiveBytes(path: path)
        for chunk in entries.flatMap(\.chunks) {
            #expect(chunk.codec == .raw)
            var damaged = archive
            damaged.bytes[Int(chunk.offset) + Int(chunk.storedLength) / 2] ^= 0x01
            let damagedPath = folder.file("damaged-\(chunk.offset).webarc")
            try damaged.write(to: damagedPath)
            let reader = try ArchiveReader(path: damagedPath)
            let oneByOne = ArchiveVerifier.verify(reader, laneHashing: false).problems
            #expect(oneByOne.map(\.code) == ["chunk-digest"], "\(oneByOne)")
            #expect(oneByOne.first?.offset == chunk.offset)
            if MD5Lanes.isAvailable {
                #expect(
                    ArchiveVerifier.verify(reader, laneHashing: true).problems == oneByOne, "chunk at \(chunk.offset)")
            }
        }
    }

    @Test(
        "a body of one chunk whose entry's SHA-256 differs from its chunk's digest fails body-digests, in lanes and one by one"
    )
    func singleChunkBodyHash() throws {
        let path = SpecVectorTests.vectors.path + "/invalid/body-digest-sha256.webarc"
        let reader = try ArchiveReader(path: path)
        var bodies: [BodyEntry] = []
        try reader.forEachBody { bodies.append($0) }
        // The case the shortcut covers: one chunk, its digest right, the entry's hash not.
        let body = try #require(bodies.first { $0.chunks.count == 1 && $0.chunks[0].digest != $0.sha256 })
        for lanes in [true, false] where lanes == false || MD5Lanes.isAvailable {
            let problems = ArchiveVerifier.verify(reader, laneHashing: lanes).problems
            #expect(problems.map(\.code) == ["body-digest"], "lanes \(lanes): \(problems)")
            #expect(problems.first?.offset == body.firstChunkOffset)
            #expect(problems.first?.check == "body-digests")
            #expect(problems.first?.message.contains("SHA-256") == true, "\(problems)")
        }
    }

    // Lanes need AVX-512F and a run that is not portable (see lanesMatchMD5).
    @Test(
        "every invalid vector that verify rejects gets the same report with lanes as one by one",
        .enabled(if: MD5Lanes.isAvailable, "needs AVX-512F and a run that is not portable"))
    func invalidVectors() throws {
        for vector in SpecVectorTests.invalidCases where vector.stage == "verify" {
            let reader = try SpecVectorTests.open("invalid/\(vector.file)", bases: vector.bases)
            #expect(
                ArchiveVerifier.verify(reader, laneHashing: true) == ArchiveVerifier.verify(reader, laneHashing: false),
                "\(vector.file)")
        }
    }

    @Test("runs hand out every body once, neighbours in the queue's order, shorter as the queue runs dry")
    func queueRuns() throws {
        let folder = try TemporaryFolder()
        var random = SeededGenerator(seed: 43)
        let pages = (0..<300).map {
            ("http://localhost/\($0)", random.bytes(Int.random(in: 1...40_000, using: &random)))
        }
        let path = try makeArchive(at: folder.file("runs.webarc"), pages: pages)
        var bodies: [BodyEntry] = []
        try ArchiveReader(path: path).forEachBody { bodies.append($0) }
        let order = Verification.checkingOrder(bodies, inFileOrder: false)
        let queue = BodyQueue(bodies, order: order, workers: 2)
        let taken = Mutex<[ArraySlice<Int>]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            while let run = queue.nextRun() { taken.withLock { $0.append(run) } }
        }
        let runs = taken.withLock { $0 }.sorted { $0.startIndex < $1.startIndex }
        #expect(runs.flatMap { $0 } == order)
        #expect(runs.count > 1 && runs.count < order.count)
        for run in runs where run.count > 1 {
            #expect(run.count <= BodyQueue.runBodies)
            #expect(run.reduce(UInt64(0)) { $0 + bodies[$1].length } <= BodyQueue.runBytes)
        }
        #expect(runs.last?.count == 1)
    }
}

extension Array where Element == [UInt8] {
    /// Calls `body` with a pointer to each array's bytes (nil for an empty one), all pinned at once.
    func withPointers<R>(_ body: ([UnsafePointer<UInt8>?]) -> R) -> R {
        var pointers: [UnsafePointer<UInt8>?] = []
        func pin(_ index: Int) -> R {
            guard index < count else { return body(pointers) }
            return self[index].withUnsafeBufferPointer { buffer in
                pointers.append(buffer.baseAddress)
                return pin(index + 1)
            }
        }
        return pin(0)
    }
}

/// Hashes one message per lane of `lanes`, all busy lanes a few blocks at a time (each busy only
/// while it has a whole block left) or, with `alone`, now and then one lane ahead alone with
/// one-stream blocks (only that where the sixteen-lane kernel is missing), then expects each
/// lane's digest to be `reference` of its message.
func expectLanesMatch<Lanes: HashLanes>(
    _ lanes: Lanes, _ messages: [[UInt8]], alone: Bool, round: Int, using random: inout SeededGenerator,
    reference: ([UInt8]) -> Lanes.Digest
) {
    var lanes = lanes
    let blockSize = MD5Lanes.blockSize
    var hashed = [Int](repeating: 0, count: Lanes.count)
    for lane in 0..<Lanes.count { lanes.reset(lane) }
    while true {
        let left = messages.indices.map { (messages[$0].count - hashed[$0]) / blockSize }
        guard let step = left.filter({ $0 > 0 }).min() else { break }
        if alone && (!MD5Lanes.isAvailable || Bool.random(using: &random)) {
            let lane = left.indices.filter { left[$0] > 0 }.randomElement(using: &random)!
            let blocks = Int.random(in: 1...left[lane], using: &random)
            messages[lane].withUnsafeBufferPointer {
                lanes.update(lane, $0.baseAddress! + hashed[lane], blocks: blocks)
            }
            hashed[lane] += blocks * blockSize
            continue
        }
        let blocks = min(step, Int.random(in: 1...3, using: &random))
        let busy = left.map { $0 > 0 }
        messages.withPointers { pointers in
            lanes.update(
                pointers.indices.map { lane in busy[lane] ? pointers[lane].map { $0 + hashed[lane] } : nil },
                blocks: blocks)
        }
        for lane in busy.indices where busy[lane] { hashed[lane] += blocks * blockSize }
    }
    for (lane, message) in messages.enumerated() {
        let digest = message[hashed[lane]...].withUnsafeBytes {
            lanes.finish(lane, tail: $0, totalLength: UInt64(message.count))
        }
        #expect(digest == reference(message), "round \(round), lane \(lane), \(message.count) bytes")
    }
}
