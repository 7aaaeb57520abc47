// The header values the replay engine (WebArcReplay, shared by the server and the URL protocol)
// parses from a hostile client or a hostile archive. Input: 8 bytes of body length (little-endian;
// short inputs give 0), then LF-separated values: Range, If-Range, If-None-Match,
// If-Modified-Since (the request), ETag, Last-Modified, Content-Type (the stored response); a
// missing or empty line is an absent header, so a seed of one Range value fuzzes the Range parser
// alone. Invariants: a partial range is non-empty and inside the body; BodyDecision agrees with
// its parts; `*` in If-None-Match matches any body, and the body's own (ASCII) tags and date always
// match (If-None-Match, If-Modified-Since, If-Range), a weak If-Range never; HTTPDate formats and
// parses back; ContentTypeParts gives a trimmed lower-case media type without parameters.
import WebArc
import WebArcReplay

/// The body's own tag (`BodyReference.etag`: a quoted MD5), which the stored ETag joins.
let bodyTag = "\"3ae51e45f53ca02870d913352eb85812\""
/// Dates that HTTPDate must format and parse back: 1970 to 9999.
let datable: ClosedRange<Int64> = 0...253_402_300_799

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPRequest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let length = bytes.prefix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    let lines = size > 8 ? bytes[8...].split(separator: 0x0A, omittingEmptySubsequences: false) : []
    func line(_ index: Int) -> String? {
        index < lines.count && !lines[index].isEmpty ? String(decoding: lines[index], as: UTF8.self) : nil
    }
    let request = ReplayConditions(range: line(0), ifRange: line(1), ifNoneMatch: line(2), ifModifiedSince: line(3))
    let entityTags = [bodyTag] + (line(4).map { [$0] } ?? [])
    let lastModified = line(5).flatMap(HTTPDate.parse)

    if case .partial(let range) = ByteRangeRequest(header: request.range, length: length) {
        precondition(range.lowerBound < range.upperBound && range.upperBound <= length, "range \(range) of \(length)")
    }
    checkDecision(request, length: length, entityTags: entityTags, lastModified: lastModified)
    checkIfNoneMatch(request, entityTags: entityTags, lastModified: lastModified)
    checkIfModifiedSince(entityTags: entityTags, lastModified: lastModified)
    checkIfRange(request.ifRange, entityTags: entityTags, lastModified: lastModified)
    for text in [line(5), request.ifModifiedSince, request.ifRange] {
        if let text, let date = HTTPDate.parse(text), datable.contains(date) {
            precondition(
                HTTPDate.parse(HTTPDate.format(date)) == date, "\(text) is \(date), formatted \(HTTPDate.format(date))")
        }
    }
    checkContentType(line(6))
    return 0
}

/// BodyDecision is its parts in order: a 2xx answers conditionals, then a 200 its range.
func checkDecision(_ request: ReplayConditions, length: UInt64, entityTags: [String], lastModified: Int64?) {
    let decision = BodyDecision(
        status: 200, length: length, entityTags: entityTags, lastModified: lastModified, conditions: request)
    let notModified =
        (request.ifNoneMatch != nil || request.ifModifiedSince != nil)
        && ConditionalRequest.isNotModified(
            ifNoneMatch: request.ifNoneMatch, ifModifiedSince: request.ifModifiedSince, entityTags: entityTags,
            lastModified: lastModified)
    let ranged =
        request.range != nil
        && ConditionalRequest.rangeApplies(ifRange: request.ifRange, entityTags: entityTags, lastModified: lastModified)
    let range = ByteRangeRequest(header: request.range, length: length)
    switch decision {
    case .notModified: precondition(notModified)
    case .whole: precondition(!notModified && (!ranged || range == .whole))
    case .partial(let partial): precondition(!notModified && ranged && range == .partial(partial))
    case .unsatisfiable: precondition(!notModified && ranged && range == .unsatisfiable)
    }
    let missing = BodyDecision(
        status: 404, length: length, entityTags: entityTags, lastModified: lastModified, conditions: request)
    precondition(missing == .whole, "a 404 answered \(missing)")
}

/// `*` matches any body whatever the header lists besides; a present If-None-Match decides alone;
/// each tag of the body, as sent, matches itself, weak or strong.
func checkIfNoneMatch(_ request: ReplayConditions, entityTags: [String], lastModified: Int64?) {
    func notModified(_ ifNoneMatch: String?, _ ifModifiedSince: String?) -> Bool {
        ConditionalRequest.isNotModified(
            ifNoneMatch: ifNoneMatch, ifModifiedSince: ifModifiedSince, entityTags: entityTags,
            lastModified: lastModified)
    }
    precondition(
        notModified("*", request.ifModifiedSince) && notModified("*, " + (request.ifNoneMatch ?? ""), nil),
        "* did not match")
    if let ifNoneMatch = request.ifNoneMatch, isASCII(ifNoneMatch) {
        precondition(notModified(ifNoneMatch + ", *", nil), "* did not match")
    }
    if let ifNoneMatch = request.ifNoneMatch {
        precondition(notModified(ifNoneMatch, request.ifModifiedSince) == notModified(ifNoneMatch, nil))
    }
    for tag in entityTags where isListable(tag) {
        precondition(notModified(tag, nil), "\(tag) did not match itself")
        if !tag.hasPrefix("W/") { precondition(notModified("W/" + tag, nil), "W/\(tag) did not match \(tag)") }
    }
}

/// The body's own date is not modified since itself, and is modified since the second before.
func checkIfModifiedSince(entityTags: [String], lastModified: Int64?) {
    guard let lastModified, datable.contains(lastModified) else { return }
    func notModified(since date: Int64) -> Bool {
        ConditionalRequest.isNotModified(
            ifNoneMatch: nil, ifModifiedSince: HTTPDate.format(date), entityTags: entityTags, lastModified: lastModified
        )
    }
    precondition(notModified(since: lastModified), "modified since its own date \(lastModified)")
    if lastModified > 0 {
        precondition(!notModified(since: lastModified - 1), "not modified since the second before \(lastModified)")
    }
}

/// No If-Range lets the range apply, a weak one never; a strong tag of the body and the body's
/// own date do, another date does not.
func checkIfRange(_ ifRange: String?, entityTags: [String], lastModified: Int64?) {
    func applies(_ value: String?) -> Bool {
        ConditionalRequest.rangeApplies(ifRange: value, entityTags: entityTags, lastModified: lastModified)
    }
    precondition(applies(nil) && applies(" "))
    if let ifRange, ifRange.trimmingSpaces.hasPrefix("W/") {
        precondition(!applies(ifRange), "weak \(ifRange) applied")
    }
    for tag in entityTags where tag.hasPrefix("\"") && tag.trimmingSpaces == tag[...] {
        precondition(applies(tag), "\(tag) did not apply")
    }
    if let lastModified, datable.contains(lastModified), lastModified < datable.upperBound {
        precondition(applies(HTTPDate.format(lastModified)), "its own date \(lastModified) did not apply")
        precondition(!applies(HTTPDate.format(lastModified + 1)), "another date applied")
    }
}

/// A media type is non-empty, lower case, trimmed, without parameters, and parses to itself.
func checkContentType(_ contentType: String?) {
    let parts = ContentTypeParts.of(contentType)
    if contentType == nil { precondition(parts.mimeType == nil && parts.textEncoding == nil) }
    if let mimeType = parts.mimeType {
        precondition(
            !mimeType.isEmpty && mimeType.lowercased() == mimeType && !mimeType.contains(";"), "media type \(mimeType)")
        precondition(mimeType.trimmingSpaces == mimeType[...], "media type \(mimeType) is not trimmed")
        precondition(ContentTypeParts.of(mimeType).mimeType == mimeType, "media type \(mimeType) parses to another")
    }
    if let charset = parts.textEncoding {
        precondition(charset.lowercased() == charset && !charset.contains(";"), "charset \(charset)")
    }
}

/// Whether a client could send `tag` back alone in If-None-Match: ASCII (RFC 9110 `etagc`, so
/// that no combining mark joins it to a `W/` or a comma), no comma, no surrounding spaces,
/// something left after a `W/`.
func isListable(_ tag: String) -> Bool {
    isASCII(tag) && !tag.contains(",") && tag.trimmingSpaces == tag[...]
        && !(tag.hasPrefix("W/") ? tag.dropFirst(2) : tag[...]).isEmpty
}

func isASCII(_ text: String) -> Bool { text.utf8.allSatisfy { $0 < 0x80 } }
