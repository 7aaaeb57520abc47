import Testing

@testable import WebArcReplay

@Suite struct ByteRangeRequestTests {
    @Test(arguments: [
        ("bytes=0-0", ByteRangeRequest.partial(0..<1)),
        ("bytes=0-99", .partial(0..<100)),
        ("bytes=10-19", .partial(10..<20)),
        ("bytes=90-", .partial(90..<100)),
        ("bytes=-10", .partial(90..<100)),
        ("bytes=-1000", .partial(0..<100)),
        ("bytes=50-5000", .partial(50..<100)),
        ("BYTES = 1-2", .whole),
        ("Bytes=1-2", .partial(1..<3)),
        ("bytes= 1 - 2 ", .partial(1..<3)),
        ("bytes=100-", .unsatisfiable),
        ("bytes=100-200", .unsatisfiable),
        ("bytes=-0", .unsatisfiable),
        ("bytes=5-4", .whole),
        ("bytes=0-1,3-4", .whole),
        ("bytes=", .whole),
        ("bytes=-", .whole),
        ("bytes=a-b", .whole),
        ("bytes=+1-2", .whole),
        ("bytes=99999999999999999999999-", .whole),
        ("lines=1-2", .whole),
    ])
    func evaluatesAgainstAHundredBytes(header: String, expected: ByteRangeRequest) {
        #expect(ByteRangeRequest(header: header, length: 100) == expected)
    }

    @Test func noHeaderAndEmptyBody() {
        #expect(ByteRangeRequest(header: nil, length: 10) == .whole)
        #expect(ByteRangeRequest(header: "bytes=0-", length: 0) == .unsatisfiable)
        #expect(ByteRangeRequest(header: "bytes=-5", length: 0) == .unsatisfiable)
    }
}
