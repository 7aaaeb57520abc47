// The replay engine's Range header parser (ByteRangeRequest, shared by the server and the URL
// protocol) against a body length. Input: 8 bytes of body length (little-endian; short inputs
// give 0), then the header value. A partial range must be non-empty and inside the body.
import WebArcReplay

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
