import Crypto
import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// MD5s of many messages at once (`MD5Lanes.digests(of:lanes:)`), against swift-crypto's MD5 one
/// by one: lengths at block and padding edges, groups of more than sixteen, lanes of very unequal
/// lengths (the long ones hashed alone), and the path without lanes.
@Suite("MD5 lanes, batched")
struct MD5LanesBatchTests {
    static func expected(_ messages: [[UInt8]]) -> [BodyDigest] {
        messages.map { BodyDigest(Insecure.MD5.hash(data: $0)) }
    }

    @Test("edge lengths, in one group and in several, with lanes and without")
    func edges() {
        var random = SeededGenerator(seed: 41)
        let lengths = [0, 1, 55, 56, 63, 64, 65, 127, 128, 129, 4095, 4096, 262_143, 262_144, 262_145, 1 << 20]
        let messages = lengths.map { random.bytes($0) }
        for lanes in [true, false] {
            #expect(MD5Lanes.digests(of: messages, lanes: lanes) == Self.expected(messages), "lanes: \(lanes)")
            let reversed = Array(messages.reversed())
            #expect(MD5Lanes.digests(of: reversed, lanes: lanes) == Self.expected(reversed), "lanes: \(lanes)")
            let many = messages + messages.shuffled(using: &random) + messages.prefix(5)
            #expect(MD5Lanes.digests(of: many, lanes: lanes) == Self.expected(many), "lanes: \(lanes)")
        }
        #expect(MD5Lanes.digests(of: []).isEmpty)
        #expect(MD5Lanes.digests(of: [[]]) == [BodyDigest.ofEmpty])
    }

    @Test("random lengths: equal, unequal, one long among short ones, duplicates")
    func random() {
        var random = SeededGenerator(seed: 43)
        for round in 0..<30 {
            let count = Int.random(in: 1...100, using: &random)
            var messages: [[UInt8]] = (0..<count).map { _ in
                switch round % 3 {
                case 0: random.bytes(Int.random(in: 0...3000, using: &random))
                case 1: random.bytes(2048 + Int.random(in: 0...64, using: &random))
                default: random.bytes(Int.random(in: 0...200, using: &random))
                }
            }
            if round % 3 == 2 { messages[messages.count / 2] = random.bytes(300_000) }
            if count > 3 { messages[1] = messages[0] }
            #expect(MD5Lanes.digests(of: messages) == Self.expected(messages), "round \(round)")
        }
    }

    @Test("the cost model puts messages in lanes when that pays and hashes long ones alone")
    func costModel() {
        #expect(MD5Lanes.lanesThatPay(Array(repeating: 64, count: 16)) == 16)
        #expect(MD5Lanes.lanesThatPay([1000]) == 0)
        #expect(MD5Lanes.lanesThatPay([0, 0, 0]) == 0)
        #expect(MD5Lanes.lanesThatPay([900, 1000]) == 2)
        // A 1 MiB page among fifteen 4 KiB ones is hashed alone.
        #expect(MD5Lanes.lanesThatPay(Array(repeating: 64, count: 15) + [16384]) == 15)
        #expect(MD5Lanes.lanesThatPay([10, 10, 10, 20, 20, 20, 20, 40]) == 8)
        // More messages than lanes: a lane that ends takes the next.
        #expect(MD5Lanes.lanesThatPay(Array(repeating: 64, count: 64)) == 64)
        #expect(MD5Lanes.lanesThatPay(Array(repeating: 10, count: 40) + [100_000]) == 40)
    }
}
