import Testing

@testable import WebArcReplay

/// Conditionals and ranges as both front ends apply them (Spec/replay.md §4).
@Suite("Body decisions")
struct BodyDecisionTests {
    static let tag = "\"0123456789abcdef0123456789abcdef\""

    private func decide(status: Int = 200, length: UInt64 = 100, _ conditions: ReplayConditions) -> BodyDecision {
        BodyDecision(
            status: status, length: length, entityTags: CollectionOfOne(Self.tag), lastModified: 1000,
            conditions: conditions)
    }

    @Test(
        "hostile range numbers never overflow",
        arguments: [
            ("bytes=0-18446744073709551615", BodyDecision.partial(0..<100)),
            ("bytes=18446744073709551615-", .unsatisfiable),
            ("bytes=-18446744073709551615", .partial(0..<100)), ("bytes=0-18446744073709551616", .whole),
            ("bytes=18446744073709551614-18446744073709551615", .unsatisfiable),
        ])
    func hostileRanges(header: String, expected: BodyDecision) {
        #expect(decide(ReplayConditions(range: header)) == expected)
        #expect(
            BodyDecision(
                status: 200, length: .max, entityTags: CollectionOfOne(Self.tag), lastModified: nil,
                conditions: ReplayConditions(range: "bytes=0-18446744073709551615")) == .partial(0..<UInt64.max))
    }

    @Test("304 for a 2xx whose tag matches; a range only on a 200; If-Range turns it off")
    func rules() {
        #expect(decide(ReplayConditions(ifNoneMatch: Self.tag)) == .notModified)
        #expect(decide(status: 203, ReplayConditions(ifNoneMatch: "W/" + Self.tag)) == .notModified)
        #expect(decide(status: 404, ReplayConditions(ifNoneMatch: Self.tag)) == .whole)
        #expect(decide(ReplayConditions(ifModifiedSince: "Thu, 01 Jan 1970 00:16:40 GMT")) == .notModified)
        #expect(decide(ReplayConditions(range: "bytes=10-19")) == .partial(10..<20))
        #expect(decide(status: 203, ReplayConditions(range: "bytes=10-19")) == .whole)
        #expect(decide(ReplayConditions(range: "bytes=10-19", ifRange: "\"other\"")) == .whole)
        #expect(decide(ReplayConditions(range: "bytes=10-19", ifRange: Self.tag)) == .partial(10..<20))
        #expect(decide(ReplayConditions(range: "bytes=100-")).contentRange(length: 100) == "bytes */100")
        #expect(BodyDecision.partial(10..<20).contentRange(length: 100) == "bytes 10-19/100")
    }

    @Test("request headers are found without case")
    func headerNames() {
        let conditions = ReplayConditions(headers: ["RANGE": "bytes=0-1", "if-none-match": "*", "Accept": "x"])
        #expect(conditions == ReplayConditions(range: "bytes=0-1", ifNoneMatch: "*"))
    }
}
