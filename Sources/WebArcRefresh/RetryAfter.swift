import Foundation
import WebArc

/// The wait a 429 or 503 answer's `Retry-After` field asks for (RFC 9110 §10.2.3).
enum RetryAfter {
    /// Seconds to wait for `value`: delay-seconds as given, or an IMF-fixdate less `now` (0 when it
    /// has passed); nil when the field is absent or neither form.
    static func seconds(_ value: String?, now: Date) -> TimeInterval? {
        guard let text = value?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        if text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // An absurdly long number is still a wait, just one longer than any limit.
            return TimeInterval(text) ?? .infinity
        }
        guard let date = HTTPDate.parse(text) else { return nil }
        return max(0, TimeInterval(date) - now.timeIntervalSince1970)
    }
}
