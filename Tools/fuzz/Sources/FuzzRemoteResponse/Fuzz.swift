// Response heads from a hostile server or CDN as the remote reader (WebArcRemote) judges them:
// `Content-Range` (ContentRange) of every header value and of every line that is not a header,
// and the Validator (ETag, Last-Modified) of the first head against itself and the second.
// Input: `Name: value` lines (a name is an RFC 9110 token, as NIO's parser delivers it); an
// empty line ends the first head. A parsed range is non-empty (or `*/total`), ends at or before
// a known total, counts without trapping and formats back to itself; a head never mismatches
// its own validator, and a repeated ETag or Last-Modified with another value always does.
import NIOHTTP1
import WebArcRemote

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRemoteResponse(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    var heads = [HTTPHeaders(), HTTPHeaders()]
    var head = 0
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        guard !line.isEmpty else {
            head = 1
            continue
        }
        guard let colon = line.firstIndex(of: ":"), isToken(line[..<colon]) else {
            checkContentRange(String(line))
            continue
        }
        let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
        heads[head].add(name: String(line[..<colon]), value: String(value))
    }
    for headers in heads {
        for (_, value) in headers { checkContentRange(value) }
    }
    checkValidator(of: heads[0], against: heads[1])
    return 0
}

/// Whether `name` is an RFC 9110 token (`tchar`s), as a header name from NIO's parser is.
func isToken(_ name: Substring) -> Bool {
    !name.isEmpty
        && name.utf8.allSatisfy { byte in
            (0x21...0x7E).contains(byte) && !"\"(),/:;<=>?@[\\]{}".utf8.contains(byte)
        }
}

/// A parsed range is one of the two forms, inside a known total, and formats back to itself.
func checkContentRange(_ value: String) {
    guard let range = ContentRange(value) else { return }
    if range.start == range.end {
        precondition(range.start == 0 && range.total != nil, "\(value): an empty range that is not */total")
        precondition(ContentRange("bytes */\(range.total!)") == range)
        return
    }
    precondition(range.start < range.end, "\(value): start \(range.start) after end \(range.end)")
    if let total = range.total { precondition(range.end <= total, "\(value): end \(range.end) past total \(total)") }
    let count = range.count
    precondition(
        count > 0 && (range.end - range.start > UInt64(Int.max) || count == Int(range.end - range.start)),
        "\(value): count \(count)")
    let formatted = "bytes \(range.start)-\(range.end - 1)/\(range.total.map(String.init) ?? "*")"
    precondition(ContentRange(formatted) == range, "\(value) formats as \(formatted), which parses to another range")
}

/// The validator of `first`: its precondition is If-Match for a strong tag, else
/// If-Unmodified-Since; `first` matches it, `second` mismatches it exactly when it repeats a
/// validator with another value.
func checkValidator(of first: HTTPHeaders, against second: HTTPHeaders) {
    let validator = Validator(first)
    precondition(validator.mismatch(first) == nil, "a head mismatches its own validator")
    switch validator.precondition {
    case ("If-Match", let value)?: precondition(value == validator.etag && !value.hasPrefix("W/"))
    case ("If-Unmodified-Since", let value)?:
        precondition(value == validator.lastModified && (validator.etag?.hasPrefix("W/") ?? true))
    case nil: precondition((validator.etag?.hasPrefix("W/") ?? true) && validator.lastModified == nil)
    case let other?: preconditionFailure("precondition \(other)")
    }
    func differs(_ kept: String?, _ name: String) -> Bool {
        guard let kept, let found = second.first(name: name) else { return false }
        return found != kept
    }
    let changed = differs(validator.etag, "etag") || differs(validator.lastModified, "last-modified")
    precondition(
        (validator.mismatch(second) != nil) == changed,
        "mismatch \(validator.mismatch(second) ?? "none"), changed \(changed)")
}
