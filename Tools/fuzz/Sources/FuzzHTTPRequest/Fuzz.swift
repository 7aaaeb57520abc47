// The server's Range header parser (ByteRangeRequest) against a body length. Input: 8 bytes of
// body length (little-endian; short inputs give 0), then the header value. A partial range must
// be non-empty and inside the body. (The conditional headers, ConditionalRequest, are internal to
// WebArcServer and a release build's modules are not testable, so they are not fuzzed here.)
import WebArcServer

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let length = bytes.prefix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    let header = size > 8 ? String(decoding: bytes[8...], as: UTF8.self) : nil
    if case .partial(let range) = ByteRangeRequest(header: header, length: length) {
        precondition(range.lowerBound < range.upperBound && range.upperBound <= length, "range \(range) of \(length)")
    }
    return 0
}
