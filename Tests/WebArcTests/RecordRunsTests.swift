import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

@Suite("Record runs and the body table: a writer's bounded memory")
struct RecordRunsTests {
    /// Writes 3 000 records (some URLs several times, with and without capture dates, bodies
    /// repeated) through a writer whose records spill a run every `runBytes` bytes.
    private static func write(to path: String, runBytes: Int) throws {
        var options = ArchiveWriter.Options(dictionaryInterval: 8)
        options.recordRunBytes = runBytes
        let writer = try ArchiveWriter(path: path, options: options)
        var random = SeededGenerator(seed: 11)
        for number in 0..<3_000 {
            // Every seventh URL comes back later, and every fifth body repeats an earlier one.
            let page = number % 7 == 6 ? number / 2 : number
            let body = try writer.addBody(random.text(number % 5 == 4 ? 300 : 200 + number % 900))
            let date: Date? = number % 3 == 0 ? nil : Date(timeIntervalSince1970: Double(number % 11) * 86_400)
            try writer.add(
                ResponseRecord(
                    request: RequestRecord(url: "http://localhost/wiki/\(page % 97)/page-\(page).html"),
                    headers: [HTTPHeader("Content-Type", "text/html")], mimeType: "text/html", body: body,
                    captureDate: date))
            if number % 50 == 0 {
                try writer.add(
                    RedirectRecord(
                        request: RequestRecord(url: "http://localhost/go/\(number)"), status: 301,
                        target: "http://localhost/wiki/\(page % 97)/page-\(page).html"))
            }
        }
        try writer.finish()
    }

    @Test("records sorted through spilled runs give the bytes of an in-memory sort")
    func spilledRunsSameBytes() throws {
        let folder = try TemporaryFolder()
        try Self.write(to: folder.file("memory.webarc"), runBytes: 1 << 30)
        // About 2 KiB per run: well over a hundred runs to merge.
        try Self.write(to: folder.file("runs.webarc"), runBytes: 2048)
        let memory = try Data(contentsOf: URL(fileURLWithPath: folder.file("memory.webarc")))
        let runs = try Data(contentsOf: URL(fileURLWithPath: folder.file("runs.webarc")))
        #expect(firstDifference(memory, runs) == nil)
        let reader = try ArchiveReader(path: folder.file("runs.webarc"))
        #expect(reader.recordCount == 3_000 + 60)
        // Page 3 is added as number 3 and again as number 6: two records under one key.
        let all = try reader.lookupAll(key: try URLKey.key(method: "GET", url: "http://localhost/wiki/3/page-3.html"))
        #expect(all.count == 2)
    }

    @Test(
        "the body table finds every variant before and after it is sealed, past its memory buffer, grown or reserved",
        arguments: [0, 5_000, 50_000])
    func bodyTableLookups(reserved: Int) throws {
        // Its sealed list in a scratch file of 79 blocks: more than the 32 its cache keeps.
        let table = BodyTable(sortedHeldCount: 100)
        try table.reserve(reserved)
        var references: [BodyReference: UInt64] = [:]
        // 20 000 entries of 124 bytes: past the log's 1 MiB buffer, so most are read from its file.
        for number in 0..<20_000 {
            var digest = [UInt8](repeating: 0, count: 16)
            digest[0] = UInt8(number % 256)
            digest[1] = UInt8(number / 256 % 256)
            // Every hundredth digest is shared by a second body: a variant 1.
            let shared = number % 100 == 99
            if shared { digest = [UInt8](repeating: 0, count: 16) }
            let chunk = ChunkEntry(
                offset: UInt64(number) * 1000, storedLength: 10, rawLength: 20, codec: .lz4,
                digest: SHA256Hash.of([UInt8(number % 256)]))
            let entry = try table.add(
                digest: BodyDigest(sixteen: digest), length: UInt64(number + (shared ? 1_000_000 : 0)),
                sha256: SHA256Hash.of([UInt8(number % 256), 1]), chunks: [chunk])
            references[entry.reference] = entry.length
        }
        #expect(table.count == 20_000)
        let zero = BodyDigest(sixteen: [UInt8](repeating: 0, count: 16))
        #expect(try table.variants(of: zero).map(\.reference.variant) == Array(0...200))
        for (reference, length) in references where reference.variant % 50 == 0 {
            #expect(try table.entry(reference)?.length == length)
        }
        try table.seal()
        #expect(try table.variants(of: zero).count == 201)
        var listed: [BodyReference] = []
        try table.forEachSorted { listed.append($0.reference) }
        #expect(listed == references.keys.sorted())
        for (reference, length) in references where reference.variant % 50 == 0 {
            #expect(try table.entry(reference)?.length == length)
        }
        #expect(try table.entry(BodyReference(digest: zero, variant: 201)) == nil)
        // The sealed list (on disk, past its block cache) numbers every body by its place.
        for (reference, length) in references where reference.variant % 7 == 0 {
            #expect(try table.entry(reference)?.length == length)
            #expect(try table.sortedIndex(of: reference) == listed.firstIndex(of: reference))
        }
        #expect(try table.sortedIndex(of: BodyReference(digest: zero, variant: 201)) == nil)
        var absent = [UInt8](repeating: 0xFF, count: 16)
        absent[0] = 0x7F
        #expect(try table.sortedIndex(of: BodyReference(digest: BodyDigest(sixteen: absent))) == nil)
        #expect(!table.mayContain(BodyDigest(sixteen: absent)))
        #expect(table.mayContain(zero))
    }

    @Test(
        "the body table tells apart MD5s that share their first 8 bytes, with fingerprints of 24 bits or none",
        arguments: [24, 0] as [UInt64])
    func bodyTableConfirmsFingerprints(fingerprintBits: UInt64) throws {
        let table = BodyTable(fingerprintBits: fingerprintBits)
        // 3 000 digests in 30 groups that share their first 8 bytes; every tenth is stored twice.
        var stored: [(BodyDigest, UInt32, UInt64)] = []
        for number in 0..<3_000 {
            var bytes = [UInt8](repeating: 0x5A, count: 16)
            bytes[7] = UInt8(number % 30)
            bytes[15] = UInt8(number % 256)
            bytes[14] = UInt8(number / 256)
            let digest = BodyDigest(sixteen: bytes)
            for variant in 0..<(number % 10 == 0 ? 2 : 1) {
                let length = UInt64(number * 10 + variant)
                let entry = try table.add(
                    digest: digest, length: length, sha256: SHA256Hash.of(bytes + [UInt8(variant)]), chunks: [])
                #expect(entry.reference.variant == UInt32(variant))
                stored.append((digest, UInt32(variant), length))
            }
        }
        var absent = [UInt8](repeating: 0x5A, count: 16)
        absent[7] = 3
        absent[15] = 0xFF
        absent[14] = 0xFF
        let missing = BodyDigest(sixteen: absent)
        #expect(try table.variants(of: missing).isEmpty)
        for (digest, variant, length) in stored where length % 7 == 0 {
            #expect(table.mayContain(digest))
            #expect(try table.entry(BodyReference(digest: digest, variant: variant))?.length == length)
            #expect(try table.variants(of: digest).count == (length / 10 % 10 == 0 ? 2 : 1))
        }
        try table.seal()
        #expect(!table.mayContain(missing))
        var listed: [BodyReference] = []
        try table.forEachSorted { listed.append($0.reference) }
        #expect(listed == stored.map { BodyReference(digest: $0.0, variant: $0.1) }.sorted())
        for (digest, variant, length) in stored where length % 5 == 0 {
            #expect(try table.entry(BodyReference(digest: digest, variant: variant))?.length == length)
        }
    }

    @Test(
        "the sealed body list finds the first of each MD5 across block edges, in a file or in memory",
        arguments: [0, 1 << 16])
    func sortedBodyFileLowerBounds(heldCount: Int) throws {
        // 40 MD5s, every other one absent, each held by 1 to 600 bodies: runs that cross blocks of 256.
        var random = SeededGenerator(seed: 66)
        var elements: [SortedBodyFile.Element] = []
        for number in 0..<40 where number % 2 == 1 {
            for _ in 0..<Int.random(in: 1...600, using: &random) {
                elements.append(
                    SortedBodyFile.Element(
                        digest: BodyDigest(high: UInt64(number) << 56, low: 7),
                        offset: UInt64.random(in: 0...(1 << 40), using: &random)))
            }
        }
        let list = try SortedBodyFile(heldCount: heldCount) { add in
            for element in elements.shuffled(using: &random) { try add(element) }
        }
        let sorted = elements.sorted(by: SortedBodyFile.Element.precedes)
        #expect(list.count == sorted.count)
        var listed: [UInt64] = []
        try list.forEach { listed.append($0.offset) }
        #expect(listed == sorted.map(\.offset))
        for number in 0...40 {
            let digest = BodyDigest(high: UInt64(number) << 56, low: 7)
            let expected = sorted.firstIndex { !($0.digest < digest) } ?? sorted.count
            #expect(try list.lowerBound(digest) == expected, "MD5 \(number)")
            if expected < sorted.count { #expect(try list.element(at: expected).offset == sorted[expected].offset) }
        }
        #expect(try list.element(at: sorted.count - 1).offset == sorted.last?.offset)
    }

    @Test("a parked array comes back from its scratch file element for element, empty or not")
    func parkedArray() throws {
        struct Pair: Equatable {
            var number: UInt64
            var tag: Int32
        }
        let pairs = (0..<70_000).map { Pair(number: UInt64($0) &* 0x9E37_79B9_7F4A_7C15, tag: Int32($0 % 977)) }
        let parked = try ParkedArray(pairs, prefix: "webarc-test-parked")
        #expect(parked.count == pairs.count)
        #expect(try parked.restore() == pairs)
        #expect(try parked.restore() == pairs)
        #expect(try ParkedArray([Pair](), prefix: "webarc-test-parked").restore().isEmpty)
    }
}
