import Crypto
import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// The sixteen-lane SHA-256 (`SHA256Lanes`) and the one-stream SHA-256 that can go on from a lane
/// (`SHA256Stream`) against swift-crypto's: lengths at block and padding edges, blocks fed in
/// steps, idle lanes, lanes advanced alone, a stream continued from a lane's state.
@Suite("SHA-256 lanes")
struct SHA256LanesTests {
    // The sixteen-lane kernel needs AVX-512F, and a portable run (WEBARC_PORTABLE=1) never uses
    // it: chunks are then hashed with swift-crypto.
    @Test(
        "sixteen lanes hash as swift-crypto's SHA-256: any lengths, blocks fed in steps, idle lanes untouched, some lanes alone",
        .enabled(if: SHA256Lanes.isAvailable, "needs AVX-512F and a run that is not portable"))
    func lanesMatchSwiftCrypto() throws {
        var random = SeededGenerator(seed: 53)
        for round in 0..<40 {
            let edges = [0, 1, 55, 56, 57, 63, 64, 65, 119, 120, 127, 128, 129, 1000, 4096, 70_001]
            let messages = (0..<SHA256Lanes.count).map { lane in
                random.bytes(round == 0 ? edges[lane] : Int.random(in: 0...5000, using: &random))
            }
            expectLanesMatch(SHA256Lanes(), messages, alone: round % 2 == 1, round: round, using: &random) {
                SHA256Hash.of($0)
            }
        }
    }

    @Test("a stream hashes as swift-crypto's SHA-256 whatever the pieces")
    func streamMatchesSwiftCrypto() throws {
        var random = SeededGenerator(seed: 59)
        for round in 0..<60 {
            let message = random.bytes(
                round < 16
                    ? [0, 1, 55, 56, 63, 64, 65, 127, 128, 129, 191, 192, 1000, 4096, 65_537, 262_144][round]
                    : Int.random(in: 0...20_000, using: &random))
            var stream = SHA256Stream()
            var start = 0
            while start < message.count {
                let end = min(message.count, start + Int.random(in: 0...300, using: &random))
                stream.update(Array(message[start..<end]))
                start = end
            }
            #expect(stream.finish() == SHA256Hash.of(message), "round \(round), \(message.count) bytes")
            // Finishing leaves the stream as it was.
            #expect(stream.finish() == SHA256Hash.of(message))
        }
    }

    // Lanes need AVX-512F and a run that is not portable (see lanesMatchSwiftCrypto).
    @Test(
        "a stream that goes on from a lane's state hashes as swift-crypto's SHA-256 of the whole message",
        .enabled(if: SHA256Lanes.isAvailable, "needs AVX-512F and a run that is not portable"))
    func streamContinuesFromLane() {
        var random = SeededGenerator(seed: 60)
        for blocks in [0, 1, 2, 4096] {
            let message = random.bytes(blocks * MD5Lanes.blockSize + 777)
            var lanes = SHA256Lanes()
            lanes.reset(5)
            var pointers = [UnsafePointer<UInt8>?](repeating: nil, count: SHA256Lanes.count)
            message.withUnsafeBufferPointer { buffer in
                pointers[5] = buffer.baseAddress
                lanes.update(pointers, blocks: blocks)
            }
            var stream = lanes.stream(continuing: 5, length: UInt64(blocks * MD5Lanes.blockSize))
            stream.update(Array(message[(blocks * MD5Lanes.blockSize)...]))
            #expect(stream.finish() == SHA256Hash.of(message), "\(blocks) blocks in the lane")
        }
    }

    @Test(
        "two streams fed the same bytes in one pass hash as swift-crypto's SHA-256: both at a block edge, inside a block at the same place and at different places"
    )
    func pairMatchesSwiftCrypto() {
        var random = SeededGenerator(seed: 61)
        for round in 0..<80 {
            // Each stream has its own bytes first (a body's earlier chunks; none for a fresh chunk),
            // then both take the same pieces.
            let lead = [0, 64, 128, 5, 63, 100_000][round % 6]
            let otherLead = round % 3 == 0 ? lead : [0, 64, 7, 63, 191][round % 5]
            let firstLead = random.bytes(lead)
            let secondLead = random.bytes(otherLead)
            let shared = random.bytes(
                round < 8 ? [0, 1, 63, 64, 65, 128, 4096, 262_144][round] : Int.random(in: 0...70_000, using: &random))
            var first = SHA256Stream()
            var second = SHA256Stream()
            first.update(firstLead)
            second.update(secondLead)
            var start = 0
            while start < shared.count {
                let end = min(shared.count, start + Int.random(in: 1...9000, using: &random))
                shared[start..<end].withUnsafeBytes { SHA256Stream.updatePair(&first, &second, $0) }
                start = end
            }
            #expect(
                first.finish() == SHA256Hash.of(firstLead + shared),
                "round \(round): first, lead \(lead), \(shared.count) shared bytes")
            #expect(
                second.finish() == SHA256Hash.of(secondLead + shared),
                "round \(round): second, lead \(otherLead), \(shared.count) shared bytes")
        }
    }

    @Test(
        "an MD5 and one or two SHA-256 streams fed the same bytes in one pass hash as swift-crypto: at a block edge, inside a block at the same place and at different places"
    )
    func md5BesideSHA256MatchesSwiftCrypto() {
        var random = SeededGenerator(seed: 71)
        for round in 0..<90 {
            // The MD5 and the first SHA-256 take the body from its start; the second, when there is
            // one, its own bytes first (none for a fresh chunk, as the writer uses it).
            let lead = [0, 64, 128, 5, 63, 100_000][round % 6]
            let otherLead = round % 3 == 0 ? lead : [0, 64, 7, 63, 191][round % 5]
            let md5Lead = round % 4 == 0 ? lead : [0, 3, 64][round % 3]
            let firstLead = random.bytes(lead)
            let secondLead = random.bytes(otherLead)
            let shared = random.bytes(
                round < 9
                    ? [0, 1, 55, 63, 64, 65, 128, 4096, 262_144][round] : Int.random(in: 0...70_000, using: &random))
            var md5 = MD5Stream()
            var first = SHA256Stream()
            var second: SHA256Stream? = round % 2 == 0 ? SHA256Stream() : nil
            let md5Bytes = Array(firstLead.prefix(md5Lead)) + random.bytes(max(0, md5Lead - lead))
            md5Bytes.withUnsafeBytes { md5.update($0) }
            first.update(firstLead)
            second?.update(secondLead)
            var start = 0
            while start < shared.count {
                let end = min(shared.count, start + Int.random(in: 1...9000, using: &random))
                shared[start..<end].withUnsafeBytes { SHA256Stream.update(&md5, &first, &second, $0) }
                start = end
            }
            let context = "round \(round): leads \(md5Lead)/\(lead)/\(otherLead), \(shared.count) shared bytes"
            #expect(md5.finish() == BodyDigest(Insecure.MD5.hash(data: md5Bytes + shared)), "\(context): MD5")
            #expect(first.finish() == SHA256Hash.of(firstLead + shared), "\(context): first")
            if let second { #expect(second.finish() == SHA256Hash.of(secondLead + shared), "\(context): second") }
        }
    }

    @Test(
        "a batch's body and chunk hashes equal swift-crypto's, with lanes and pairs and without: edge lengths, long bodies among short ones, duplicates"
    )
    func batchMatchesSwiftCrypto() {
        let chunk = ChunkEntry.maxRawLength
        func expected(_ messages: [[UInt8]]) -> [SHA256Lanes.BodyHashes] {
            messages.map { bytes in
                SHA256Lanes.BodyHashes(
                    sha256: SHA256Hash.of(bytes),
                    chunks: stride(from: 0, to: bytes.count, by: chunk).map {
                        SHA256Hash.of(bytes[$0..<min($0 + chunk, bytes.count)])
                    })
            }
        }
        var random = SeededGenerator(seed: 67)
        let edges = [
            0, 1, 55, 56, 63, 64, 65, 4096, chunk - 1, chunk, chunk + 1, 2 * chunk, 2 * chunk + 63, 3 * chunk + 100,
        ]
        var batches: [[[UInt8]]] = [edges.map { random.bytes($0) }]
        for round in 0..<12 {
            var messages = (0..<Int.random(in: 1...70, using: &random)).map { _ in
                random.bytes(Int.random(in: 0...9000, using: &random))
            }
            // Sixteen long bodies: their chunks pay in lanes; one alone does not.
            if round % 3 == 0 {
                messages += (0..<16).map { _ in random.bytes(chunk + Int.random(in: 0...chunk, using: &random)) }
            }
            if round % 3 == 1 { messages.append(random.bytes(3 * chunk + 5)) }
            if messages.count > 3 { messages[2] = messages[0] }
            batches.append(messages)
        }
        for (number, messages) in batches.enumerated() {
            let reference = expected(messages)
            #expect(SHA256Lanes.bodyHashes(of: messages, lanes: false) == reference, "batch \(number) without lanes")
            #expect(SHA256Lanes.bodyHashes(of: messages) == reference, "batch \(number)")
            #expect(SHA256Lanes.bodyHashes(of: messages, pairs: false) == reference, "batch \(number) without pairs")
            #expect(
                SHA256Lanes.bodyHashes(of: messages, lanes: false, pairs: false) == reference,
                "batch \(number) without lanes or pairs")
        }
        #expect(SHA256Lanes.bodyHashes(of: []).isEmpty)
    }
}
