import Foundation

/// A `Content-Range: bytes start-end/total` value (`total` may be `*`), or `bytes */total`.
///
/// Parsed from a server's response, so nothing in it is trusted: a parsed range has
/// `start < end` (or is the `*/total` form, `start == end == 0`) and `end <= total` when the
/// total is known; anything else is nil. RFC 9110 §14.4.
public struct ContentRange: Equatable, Sendable {
    /// The first byte.
    public var start: UInt64
    /// One past the last byte.
    public var end: UInt64
    /// The file's length; nil for `*`.
    public var total: UInt64?

    /// The number of bytes, `end - start`, at most `Int.max`: a server may claim more than a
    /// response can hold, and the callers compare this with the bytes that came.
    public var count: Int { Int(clamping: end - start) }

    init(start: UInt64, end: UInt64, total: UInt64?) {
        self.start = start
        self.end = end
        self.total = total
    }

    /// Parses a `Content-Range` header value; nil when there is none or it does not parse.
    public init?(_ value: String?) {
        guard let value, value.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        total = parts[1] == "*" ? nil : UInt64(parts[1])
        guard parts[1] == "*" || total != nil else { return nil }
        if parts[0] == "*" {
            guard total != nil else { return nil }
            start = 0
            end = 0
            return
        }
        let bounds = parts[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = UInt64(bounds[0]), let last = UInt64(bounds[1]), first <= last,
            last < UInt64.max
        else {
            return nil
        }
        if let total, last >= total { return nil }
        start = first
        end = last + 1
    }
}
