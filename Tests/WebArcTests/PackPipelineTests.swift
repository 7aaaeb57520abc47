import Crypto
import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// The packer's pipeline: parallel workers, a bounded window, likely duplicates, streamed files and
/// dictionaries by position, all writing the bytes the writer's order gives (spec Appendix C).
@Suite("Pack pipeline")
struct PackPipelineTests {
    /// 75 files (anchors at 0, 32 and 64 with interval 32): HTML pages sharing boilerplate, exact
    /// duplicates (one at an anchor position, of a page whose only chunk is codec 2), an empty file,
    /// an incompressible file and text files larger than a chunk.
    static func makeSite(at root: String) throws -> [String: [UInt8]] {
        var random = SeededGenerator(seed: 17)
        let boilerplate = random.text(6000)
        var files: [String: [UInt8]] = [:]
        for index in 0..<75 {
            // Names sort in index order, so a file's position is its index.
            let name = String(format: "p%03d.html", index)
            switch index {
            case 5: files[name] = []
            case 9: files[name] = random.bytes(300_000)
            case 20, 40: files[name] = boilerplate + random.text(700_000)
            case 32: files[name] = files["p001.html"]  // an anchor repeating a codec-2 body
            case 50, 51: files[name] = files["p010.html"]
            default:
                files[name] =
                    boilerplate + random.text(Int.random(in: 100...20_000, using: &random)) + boilerplate.prefix(500)
            }
        }
        return try write(files, at: root)
    }

    static func write(_ files: [String: [UInt8]], at root: String) throws -> [String: [UInt8]] {
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        for (name, bytes) in files { try Data(bytes).write(to: URL(fileURLWithPath: root + "/" + name)) }
        return files
    }

    /// Checks that the archive at `path` verifies and answers every file with its bytes.
    static func expectBodies(_ files: [String: [UInt8]], in path: String) throws {
        let reader = try ArchiveReader(path: path)
        #expect(ArchiveVerifier.verify(reader).passed)
        for (name, bytes) in files {
            let entry = try #require(try reader.lookup(url: "http://localhost/\(name)"))
            guard case .response(let response) = entry.record else {
                Issue.record("\(name) is not a response")
                continue
            }
            #expect(Array(try reader.body(response.body)) == bytes, "\(name)")
        }
    }

    /// Packs under a hang guard: a deadlocked pipeline fails the test after `seconds` (and leaves
    /// its threads blocked) instead of stalling the whole run.
    static func pack(
        _ packer: SitePacker, folder: String, to path: String, within seconds: Double = 60
    ) throws -> SitePacker.Summary {
        let summary = try withHangGuard(seconds: seconds) { try packer.pack(folder: folder, to: path) }
        return try #require(summary, "the pack did not finish within \(seconds) s: a pipeline deadlock?")
    }

    @Test(
        "workers, window and streaming do not change a byte; dictionaries are used and the archive verifies (local-minimum, keyed, every 32nd anchors)",
        arguments: [AnchorPlan.KeyedRule.localMinimum, .keyed, nil] as [AnchorPlan.KeyedRule?])
    func deterministic(rule: AnchorPlan.KeyedRule?) throws {
        let folder = try TemporaryFolder()
        let files = try Self.makeSite(at: folder.file("site"))
        var archives: [Data] = []
        for (workers, threshold) in [
            (1, UInt64(64 << 10)), (3, UInt64(64 << 10)), (2, UInt64(8 << 20)), (1, UInt64(8 << 20)),
        ] {
            var options = SitePacker.Options()
            options.anchorRule = rule
            options.workers = workers
            options.streamingThreshold = threshold
            let path = folder.file("w\(workers)-\(threshold).webarc")
            let summary = try Self.pack(SitePacker(options: options), folder: folder.file("site"), to: path)
            #expect(summary.statistics.bodiesStored == files.count - 3)
            archives.append(try Data(contentsOf: URL(fileURLWithPath: path)))
            try Self.expectBodies(files, in: path)
            #expect(try ArchiveReader(path: path).trailer.requiredFeatures.contains(.dictionaryCodec))
        }
        #expect(Set(archives).count == 1, "archives differ between worker counts or streaming thresholds")
    }

    @Test(
        "streamed files of many chunks queue ahead of the writer beyond four chunks while the window has room: the same bytes with any number of workers, nothing deadlocks"
    )
    func longStreamsQueueAhead() throws {
        let folder = try TemporaryFolder()
        var random = SeededGenerator(seed: 29)
        let boilerplate = random.text(4000)
        var files: [String: [UInt8]] = [:]
        for index in 0..<40 {
            let name = String(format: "q%03d.html", index)
            // 3 MB at positions 2 and 30: twelve chunks each, streamed while the writer still
            // waits for the whole files before them.
            files[name] =
                [2, 30].contains(index)
                ? boilerplate + random.text(3_000_000)
                : boilerplate + random.text(Int.random(in: 1_000...40_000, using: &random))
        }
        files = try Self.write(files, at: folder.file("site"))
        var archives: [Data] = []
        for workers in [1, 2, 3] {
            var options = SitePacker.Options()
            options.workers = workers
            options.streamingThreshold = 1 << 20
            let path = folder.file("w\(workers).webarc")
            _ = try Self.pack(SitePacker(options: options), folder: folder.file("site"), to: path)
            try Self.expectBodies(files, in: path)
            archives.append(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        #expect(Set(archives).count == 1, "archives differ between worker counts")
    }

    @Test(
        "a pack equals the writer's own order: the same bodies added one by one give the same body data (local-minimum, keyed, every 32nd anchors)",
        arguments: [AnchorPlan.KeyedRule.localMinimum, .keyed, nil] as [AnchorPlan.KeyedRule?])
    func sameAsWriter(rule: AnchorPlan.KeyedRule?) throws {
        let folder = try TemporaryFolder()
        let files = try Self.makeSite(at: folder.file("site"))
        var options = SitePacker.Options()
        options.streamingThreshold = 64 << 10
        options.anchorRule = rule
        let packer = SitePacker(options: options)
        _ = try packer.pack(folder: folder.file("site"), to: folder.file("packed.webarc"))
        var writerOptions = ArchiveWriter.Options(dictionaryInterval: SitePacker.defaultDictionaryInterval)
        if let rule {
            writerOptions.anchorPlan = AnchorPlan(
                interval: SitePacker.defaultDictionaryInterval,
                bodies: try files.keys.sorted().map {
                    (Array(try URLKey.key(method: "GET", url: packer.url(for: $0)).utf8), UInt64(files[$0]!.count))
                }, rule: rule)
        }
        let writer = try ArchiveWriter(path: folder.file("written.webarc"), options: writerOptions)
        for name in files.keys.sorted() { _ = try writer.addBody(files[name]!) }
        try writer.finish()
        let packed = try ArchiveReader(path: folder.file("packed.webarc"))
        let written = try ArchiveReader(path: folder.file("written.webarc"))
        #expect(packed.trailer.bodyDataEnd == written.trailer.bodyDataEnd)
        let packedData = try Data(contentsOf: URL(fileURLWithPath: folder.file("packed.webarc")))
        let writtenData = try Data(contentsOf: URL(fileURLWithPath: folder.file("written.webarc")))
        #expect(
            firstDifference(
                packedData.prefix(Int(packed.trailer.bodyDataEnd)), writtenData.prefix(Int(written.trailer.bodyDataEnd))
            ) == nil)
    }

    @Test("a body prepared without its position's dictionary is coded again by the writer")
    func preparedElsewhere() throws {
        let folder = try TemporaryFolder()
        var random = SeededGenerator(seed: 3)
        let shared = random.text(5000)
        let bodies = (0..<4).map { _ in shared + random.text(3000) }
        var archives: [Data] = []
        for prepared in [false, true] {
            let path = folder.file("p\(prepared).webarc")
            let writer = try ArchiveWriter(path: path, options: .init(dictionaryInterval: 2))
            for body in bodies {
                _ = prepared ? try writer.addBody(PreparedBody(body)) : try writer.addBody(body)
            }
            try writer.finish()
            archives.append(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        #expect(archives[0] == archives[1])
    }

    /// Two bodies of one MD5 that differ: Wang and Yu's colliding blocks, each followed by the
    /// same `suffix` (MD5 runs block by block, so the collision survives any common suffix).
    static func collidingPair(suffix: [UInt8]) -> ([UInt8], [UInt8]) {
        let first = WriterTests.hex(
            "d131dd02c5e6eec4693d9a0698aff95c2fcab58712467eab4004583eb8fb7f8955ad340609f4b30283e488832571415a085125e8f7cdc99fd91dbdf280373c5bd8823e3156348f5bae6dacd436c919c6dd53e2b487da03fd02396306d248cda0e99f33420f577ee8ce54b67080a80d1ec69821bcb6a8839396f9652b6ff72a70"
        )
        let second = WriterTests.hex(
            "d131dd02c5e6eec4693d9a0698aff95c2fcab50712467eab4004583eb8fb7f8955ad340609f4b30283e4888325f1415a085125e8f7cdc99fd91dbd7280373c5bd8823e3156348f5bae6dacd436c919c6dd53e23487da03fd02396306d248cda0e99f33420f577ee8ce54b67080280d1ec69821bcb6a8839396f965ab6ff72a70"
        )
        return (first + suffix, second + suffix)
    }

    @Test(
        "files of one MD5 and length that differ are stored apart, whole or streamed, at anchors or not; equal ones are stored once"
    )
    func collidingFiles() throws {
        let folder = try TemporaryFolder()
        var random = SeededGenerator(seed: 41)
        let (short, shortTwin) = Self.collidingPair(suffix: [])
        let (long, longTwin) = Self.collidingPair(suffix: random.text(600_000))
        #expect(
            BodyDigest(Insecure.MD5.hash(data: long)) == BodyDigest(Insecure.MD5.hash(data: longTwin))
                && long != longTwin)
        // c3 repeats the long files' last 30 000 bytes: it compresses well only against the
        // dictionary of the anchor before it, which is c2 with interval 2.
        let files = try Self.write(
            [
                "c0.bin": long, "c1.bin": longTwin, "c2.bin": longTwin,
                "c3.bin": Array(long.suffix(30_000)) + random.text(500),
                "c4.bin": short, "c5.bin": shortTwin, "c6.bin": short,
            ], at: folder.file("site"))
        // Interval 2 puts the repeated long file (c2) and short one (c6) at anchor positions.
        for interval in [SitePacker.defaultDictionaryInterval, 2] {
            var archives: [Data] = []
            for (workers, threshold) in [
                (1, UInt64(1 << 20)), (2, UInt64(1 << 20)), (2, UInt64(ChunkEntry.maxRawLength)), (1, UInt64(64 << 10)),
            ] {
                var options = SitePacker.Options()
                options.workers = workers
                options.streamingThreshold = threshold
                options.dictionaryInterval = interval
                let path = folder.file("c\(interval)-\(workers)-\(threshold).webarc")
                let summary = try SitePacker(options: options).pack(folder: folder.file("site"), to: path)
                #expect(summary.statistics.bodiesStored == 5, "\(workers) workers, streaming above \(threshold)")
                try Self.expectBodies(files, in: path)
                let reader = try ArchiveReader(path: path)
                var variants: [BodyDigest: Set<UInt32>] = [:]
                try reader.forEachBody { variants[$0.reference.digest, default: []].insert($0.reference.variant) }
                #expect(variants.values.sorted { $0.count < $1.count } == [[0], [0, 1], [0, 1]])
                archives.append(try Data(contentsOf: URL(fileURLWithPath: path)))
            }
            #expect(
                Set(archives).count == 1,
                "interval \(interval): archives differ between worker counts or streaming thresholds")
        }
    }

    /// 40 files of edge sizes (0, 1, 63, 64, 65 bytes, a chunk ± 1), duplicates next to each
    /// other (so within one batch) and across batches, text sharing boilerplate; anchors every 8.
    static func makeEdgeSite(at root: String) throws -> [String: [UInt8]] {
        var random = SeededGenerator(seed: 29)
        let boilerplate = random.text(3000)
        let sizes = [
            0, 1, 63, 64, 65, ChunkEntry.maxRawLength - 1, ChunkEntry.maxRawLength, ChunkEntry.maxRawLength + 1,
        ]
        var files: [String: [UInt8]] = [:]
        for index in 0..<40 {
            let name = String(format: "e%03d.html", index)
            switch index {
            case 0..<8: files[name] = index < 5 ? random.bytes(sizes[index]) : random.text(sizes[index])
            case 8..<16:
                files[name] =
                    boilerplate.prefix(sizes[index - 8] / 2) + random.bytes(sizes[index - 8] - sizes[index - 8] / 2)
            case 17, 18: files[name] = files["e016.html"]
            case 25: files[name] = []
            case 30: files[name] = files["e006.html"]
            case 31: files[name] = files["e001.html"]
            default: files[name] = boilerplate + random.text(Int.random(in: 10...9000, using: &random))
            }
        }
        return try write(files, at: root)
    }

    @Test(
        "files hashed in batches, sixteen at a time in lanes, write the archive one at a time writes, with lanes or without"
    )
    func batchedSameAsOneByOne() throws {
        let folder = try TemporaryFolder()
        let files = try Self.makeEdgeSite(at: folder.file("site"))
        func pack(batch: Int, lanes: Bool, workers: Int, threshold: UInt64) throws -> Data {
            var options = SitePacker.Options()
            options.dictionaryInterval = 8
            options.batchFiles = batch
            options.laneHashing = lanes
            options.workers = workers
            options.streamingThreshold = threshold
            let path = folder.file("b\(batch)-\(lanes)-\(workers)-\(threshold).webarc")
            _ = try SitePacker(options: options).pack(folder: folder.file("site"), to: path)
            try Self.expectBodies(files, in: path)
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }
        for threshold in [UInt64(1 << 20), UInt64(ChunkEntry.maxRawLength)] {
            let reference = try pack(batch: 1, lanes: false, workers: 1, threshold: threshold)
            for (batch, lanes, workers) in [
                (64, true, 1), (64, true, 2), (64, false, 2), (16, true, 2), (5, true, 3), (1, true, 2),
            ] {
                let archive = try pack(batch: batch, lanes: lanes, workers: workers, threshold: threshold)
                #expect(
                    archive == reference,
                    "batch \(batch), lanes \(lanes), \(workers) workers, streaming above \(threshold)")
            }
        }
    }
}
