import Foundation
import Testing
import WebArc

@testable import WebArcRefresh

/// `Retry-After` read as RFC 9110 §10.2.3 writes it: delay-seconds or an HTTP-date.
struct RetryAfterTests {
    static let now = Date(timeIntervalSince1970: 1_700_000_000)

    @Test(
        "delay-seconds, a date ahead, a date passed; anything else is no Retry-After",
        arguments: [
            ("0", 0), ("120", 120), (" 7 ", 7), (HTTPDate.format(1_700_000_090), 90),
            (HTTPDate.format(1_699_999_000), 0),
            ("", nil), ("-5", nil), ("1.5", nil), ("soon", nil), ("Tue, 31 Feb 2026 10:00:00 GMT", nil),
        ] as [(String, TimeInterval?)])
    func parses(value: String, seconds: TimeInterval?) {
        #expect(RetryAfter.seconds(value, now: Self.now) == seconds)
    }

    @Test("absent: nil; a number too long for any clock: longer than any limit")
    func edges() {
        #expect(RetryAfter.seconds(nil, now: Self.now) == nil)
        #expect(RetryAfter.seconds(String(repeating: "9", count: 400), now: Self.now) == .infinity)
    }
}
