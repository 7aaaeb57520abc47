import Testing
import WebArc

@testable import WebArcReplay

@Suite struct ConditionalRequestTests {
    static let etag = "\"0123456789abcdef0123456789abcdef\""
    static let modified = HTTPDate.parse("Tue, 01 Oct 2024 10:00:00 GMT")!

    @Test(arguments: [
        (etag, true), ("W/" + etag, true), ("\"x\", " + etag, true), ("*", true), ("\"x\"", false), ("", false),
    ])
    func ifNoneMatch(header: String, notModified: Bool) {
        #expect(
            ConditionalRequest.isNotModified(
                ifNoneMatch: header, ifModifiedSince: nil, entityTags: [Self.etag], lastModified: nil)
                == notModified)
    }

    @Test func ifModifiedSinceNeedsAKnownDate() {
        let later = "Wed, 02 Oct 2024 10:00:00 GMT"
        let earlier = "Mon, 30 Sep 2024 10:00:00 GMT"
        #expect(
            ConditionalRequest.isNotModified(
                ifNoneMatch: nil, ifModifiedSince: later, entityTags: [Self.etag], lastModified: Self.modified))
        #expect(
            !ConditionalRequest.isNotModified(
                ifNoneMatch: nil, ifModifiedSince: earlier, entityTags: [Self.etag], lastModified: Self.modified))
        #expect(
            !ConditionalRequest.isNotModified(
                ifNoneMatch: nil, ifModifiedSince: later, entityTags: [Self.etag], lastModified: nil))
        #expect(
            !ConditionalRequest.isNotModified(
                ifNoneMatch: nil, ifModifiedSince: "yesterday", entityTags: [Self.etag], lastModified: Self.modified))
        #expect(
            !ConditionalRequest.isNotModified(
                ifNoneMatch: "\"x\"", ifModifiedSince: later, entityTags: [Self.etag], lastModified: Self.modified))
    }

    @Test func ifRangeIsStrong() {
        #expect(ConditionalRequest.rangeApplies(ifRange: nil, entityTags: [Self.etag], lastModified: nil))
        #expect(ConditionalRequest.rangeApplies(ifRange: Self.etag, entityTags: [Self.etag], lastModified: nil))
        #expect(!ConditionalRequest.rangeApplies(ifRange: "W/" + Self.etag, entityTags: [Self.etag], lastModified: nil))
        #expect(
            ConditionalRequest.rangeApplies(
                ifRange: "Tue, 01 Oct 2024 10:00:00 GMT", entityTags: [Self.etag], lastModified: Self.modified))
        #expect(
            !ConditionalRequest.rangeApplies(
                ifRange: "Tue, 01 Oct 2024 10:00:01 GMT", entityTags: [Self.etag], lastModified: Self.modified))
    }

    /// FuzzHTTPRequest, FailCases/FuzzHTTPRequest/year-overflow.bin: `year - 1900` trapped in
    /// `HTTPDate.parse` for a year below Int32.min + 1900, from any client's If-Modified-Since or
    /// If-Range (or an archive's Last-Modified).
    @Test("a day the month does not have, or a time out of range, is no date: the condition is ignored")
    func impossibleDatesAreNoDates() {
        for date in [
            "Sat, 31 Feb 2024 08:49:37 GMT", "Thu, 00 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT",
            "Sun, 06 Nov 1994 08:61:37 GMT", "Sun, 06 Nov 1994 08:49:61 GMT", "Sun, 06 Nov 1994 -1:49:37 GMT",
        ] {
            #expect(HTTPDate.parse(date) == nil, "\(date)")
            #expect(
                !ConditionalRequest.isNotModified(
                    ifNoneMatch: nil, ifModifiedSince: date, entityTags: [Self.etag], lastModified: Self.modified))
        }
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 23:59:60 GMT") != nil)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
    }

    @Test func aDateWhoseYearOverflowsIsNoDate() {
        let date = "Sun, 06 Nov -2147483648 08:49:37 GMT"
        #expect(HTTPDate.parse(date) == nil)
        #expect(HTTPDate.parse("Sun, 06 Nov 2147483647 08:49:37 GMT") != nil)
        #expect(
            !ConditionalRequest.isNotModified(
                ifNoneMatch: nil, ifModifiedSince: date, entityTags: [Self.etag], lastModified: Self.modified))
        #expect(!ConditionalRequest.rangeApplies(ifRange: date, entityTags: [Self.etag], lastModified: Self.modified))
    }
}
