// The server's request-side parsers: the Range header (ByteRangeRequest) against a body length,
// and the conditional headers (If-None-Match, If-Modified-Since, If-Range). Input: 8 bytes of body
// length (little-endian; short inputs give 0), then the header values separated by newlines.
@testable import WebArcServer

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let length = bytes.prefix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    let fields = bytes.dropFirst(8).split(separator: 0x0A, omittingEmptySubsequences: false)
        .map { String(decoding: $0, as: UTF8.self) }
    func field(_ index: Int) -> String? { index < fields.count ? fields[index] : nil }
    let range = ByteRangeRequest(header: field(0), length: length)
    if case .partial(let bytes) = range {
        precondition(bytes.lowerBound < bytes.upperBound && bytes.upperBound <= length, "range \(bytes) of \(length)")
    }
    let lastModified = bytes.count >= 16 ? Int64(bitPattern: length) : nil
    _ = ConditionalRequest.isNotModified(
        ifNoneMatch: field(1), ifModifiedSince: field(2), etag: field(3) ?? "\"abc\"", lastModified: lastModified)
    _ = ConditionalRequest.isNotModified(
        ifNoneMatch: nil, ifModifiedSince: field(2), etag: "\"abc\"", lastModified: lastModified)
    _ = ConditionalRequest.rangeApplies(ifRange: field(4), etag: field(3) ?? "\"abc\"", lastModified: lastModified)
    return 0
}
