import Testing

@testable import WebArc

/// A compact update's frames (Spec/compact-update.md §2): large sections are coded with the match
/// finder's tables capped, and still find a previous version one history's length back.
@Suite struct ZstdFrameTests {
    /// Pseudo-random, incompressible text: only a match against the history can shorten it.
    func noise(_ count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(ascii: "a") + UInt8((state >> 33) % 26)
        }
    }

    @Test("the chain table shrinks as the history and content grow, within 2^20…2^23 and the window")
    func chainLogStaysInBudget() {
        #expect(ZstdFrame.chainLog(history: 3 << 20, content: 3 << 20, window: 23) == 23)
        #expect(ZstdFrame.chainLog(history: 5 << 20, content: 5 << 20, window: 24) == 22)
        #expect(ZstdFrame.chainLog(history: 60 << 20, content: 60 << 20, window: 27) == 20)
        #expect(ZstdFrame.chainLog(history: 1 << 20, content: 1 << 20, window: 21) == 22)
        for total in stride(from: 2 << 20, through: 36 << 20, by: 1 << 20) {
            let log = ZstdFrame.chainLog(history: total / 2, content: total / 2, window: 25)
            #expect(log == 20 || (4 << log) + total <= ZstdFrame.tableBudget)
        }
    }

    @Test(
        "a 3 MiB section, each part a few bytes off its previous version 3 MiB back, codes to a few KB and decodes exactly"
    )
    func largeSectionFindsItsPreviousVersions() throws {
        let parts = 12, partLength = 256 << 10
        let history = noise(parts * partLength, seed: 7)
        var content = history
        for part in 0..<parts { content[part * partLength + 1000] ^= 0x20 }
        let frame = try #require(ZstdFrame.encode(content, prefix: history))
        #expect(frame.count < 4096, "each part should be one long match into the history, \(frame.count) bytes")
        let decoded = try ZstdFrame.decode(frame[...], prefix: history, bound: content.count).get()
        #expect(decoded == content)
        #expect(throws: ZstdFrame.Problem.tooLarge(declared: UInt64(content.count), bound: content.count - 1)) {
            try ZstdFrame.decode(frame[...], prefix: history, bound: content.count - 1).get()
        }
    }

    @Test(
        "a 14 MiB frame whose pages' previous versions lie out of order, each page changed inside, codes to under 2 % and decodes exactly"
    )
    func longHistoryFindsPreviousVersionsOutOfOrder() throws {
        // 7 MiB of pages after 7 MiB of their previous versions in another order: each page's
        // match lies at its own offset, beyond the capped tree's reach for most pages.
        let pages = 448, pageLength = 16 << 10
        let history = noise(pages * pageLength, seed: 11)
        var content: [UInt8] = []
        content.reserveCapacity(history.count)
        for page in 0..<pages {
            let old = (page * 173) % pages
            var bytes = Array(history[old * pageLength..<(old + 1) * pageLength])
            bytes[pageLength / 2] ^= 0x20
            bytes.insert(contentsOf: Array("changed".utf8), at: pageLength / 3)
            content += bytes
        }
        #expect(history.count + content.count > ZstdFrame.bothUpToBytes)
        let frame = try #require(ZstdFrame.encode(content, prefix: history))
        #expect(
            frame.count < content.count / 50, "each page should be a few matches into the history, \(frame.count) bytes"
        )
        let decoded = try ZstdFrame.decode(frame[...], prefix: history, bound: content.count).get()
        #expect(decoded == content)
    }
}
