import Testing
@testable import WebArcURLProtocol

@Suite("Request conditions")
struct RequestConditionsTests {
    let conditions = RequestConditions(entityTags: ["\"abc\""], lastModified: 784_111_777)

    @Test("one byte range is parsed against the body length", arguments: [
        ("bytes=0-0", RequestConditions.RangeOutcome.partial(0..<1)), ("bytes=5-", .partial(5..<10)),
        ("bytes=-3", .partial(7..<10)), ("bytes=-30", .partial(0..<10)), ("bytes=2-100", .partial(2..<10)),
        ("bytes=10-", .unsatisfiable), ("bytes=-0", .unsatisfiable), ("bytes=5-4", .whole), ("bytes=0-1,3-4", .whole),
        ("pages=1-2", .whole), ("bytes=a-", .whole), (" bytes=1-2 ", .partial(1..<3)),
    ])
    func ranges(header: String, expected: RequestConditions.RangeOutcome) {
        #expect(conditions.range(header, ifRange: nil, length: 10) == expected)
    }

    @Test("an empty body satisfies no range")
    func emptyBody() {
        #expect(conditions.range("bytes=0-", ifRange: nil, length: 0) == .unsatisfiable)
        #expect(conditions.range("bytes=-5", ifRange: nil, length: 0) == .unsatisfiable)
    }

    @Test("If-None-Match lists compare weakly")
    func entityTags() {
        #expect(conditions.isNotModified(ifNoneMatch: "\"x\", W/\"abc\"", ifModifiedSince: nil))
        #expect(!conditions.isNotModified(ifNoneMatch: "\"abcd\"", ifModifiedSince: nil))
        #expect(!conditions.isNotModified(ifNoneMatch: nil, ifModifiedSince: nil))
    }

    @Test("a weak If-Range never matches (strong comparison)")
    func weakIfRange() {
        #expect(conditions.range("bytes=0-1", ifRange: "W/\"abc\"", length: 10) == .whole)
        #expect(conditions.range("bytes=0-1", ifRange: "\"abc\"", length: 10) == .partial(0..<2))
    }
}
