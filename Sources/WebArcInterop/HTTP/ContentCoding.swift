import WebArc

/// The Content-Encoding decision: which coded bodies are stored decoded, and how their headers change.
///
/// gzip, x-gzip and deflate are decoded, so that MD5 dedup finds equal content whatever the
/// server's compression level, and any client can be served. Other codings (br, zstd, compress)
/// stay encoded, with their `Content-Encoding` header, because no decoder for them is linked;
/// a body that fails to decode is also kept as sent. See `Spec/interop.md` §3.
enum ContentCoding {
    /// Codings this module decodes.
    static let decodable: Set<String> = ["gzip", "x-gzip", "deflate"]
    /// A body may expand at most this many times (plus 1 MiB) before decoding is refused.
    static let maxExpansion: UInt64 = 1024

    /// A body after decoding: the bytes, the codings still applied (outermost last), and why
    /// decoding stopped early, if it did.
    struct Outcome {
        var body: BodySpool
        var remaining: [String]
        var failure: String?
    }

    /// Decodes the codings it can, last applied first.
    ///
    /// - Parameters:
    ///   - codings: the `Content-Encoding` tokens, lower case, in the order they were applied.
    ///   - wire: true when `body` is as sent on the wire (WARC); false when a browser already
    ///     decoded it (HAR, `.webarchive`), in which case a coding is decoded only when the bytes
    ///     still carry its signature, and every coding header is dropped.
    static func decode(_ body: BodySpool, codings: [String], wire: Bool) throws -> Outcome {
        var remaining = codings.filter { $0 != "identity" }
        guard body.count > 0 else { return Outcome(body: body, remaining: [], failure: nil) }
        var current = body
        while let coding = remaining.last {
            guard decodable.contains(coding) else {
                if wire { break }
                remaining.removeLast()
                continue
            }
            if try !wire && !looksEncoded(current.prefix(2), coding: coding) {
                remaining.removeLast()
                continue
            }
            do {
                current = try inflate(current, coding: coding)
                remaining.removeLast()
            } catch let failure as InflateFailure {
                if !wire {
                    remaining.removeLast()
                    continue
                }
                return Outcome(body: current, remaining: remaining, failure: failure.reason)
            }
        }
        return Outcome(body: current, remaining: wire ? remaining : [], failure: nil)
    }

    /// The headers that describe a stored body: no `Transfer-Encoding`, `Content-Encoding` only
    /// for codings still applied, `Content-Length` (when present) equal to the stored length.
    static func headers(_ headers: [HTTPHeader], remaining: [String], length: UInt64) -> [HTTPHeader] {
        var result: [HTTPHeader] = []
        var wroteEncoding = false
        var wroteLength = false
        for header in headers {
            switch header.name.lowercased() {
            case "transfer-encoding": continue
            case "content-encoding":
                if !wroteEncoding && !remaining.isEmpty {
                    result.append(HTTPHeader(header.name, remaining.joined(separator: ", ")))
                }
                wroteEncoding = true
            case "content-length":
                if !wroteLength { result.append(HTTPHeader(header.name, String(length))) }
                wroteLength = true
            default: result.append(header)
            }
        }
        return result
    }

    static func looksEncoded(_ prefix: [UInt8], coding: String) -> Bool {
        guard prefix.count == 2 else { return false }
        if coding == "deflate" {
            return prefix[0] & 0x0F == 8 && (UInt16(prefix[0]) << 8 | UInt16(prefix[1])) % 31 == 0
        }
        return prefix[0] == 0x1F && prefix[1] == 0x8B
    }

    /// Inflates a spooled body into a new spool; gzip may hold several members, and bytes after
    /// the last member are ignored as browsers ignore them.
    private static func inflate(_ body: BodySpool, coding: String) throws -> BodySpool {
        if coding == "deflate" {
            let wrapped = looksEncoded(try body.prefix(2), coding: "deflate")
            return try inflate(body, format: wrapped ? .zlib : .raw)
        }
        return try inflate(body, format: .gzip)
    }

    private static func inflate(_ body: BodySpool, format: Inflater.Format) throws -> BodySpool {
        let inflater = try Inflater(format: format)
        let output = BodySpool()
        let limit = body.count * maxExpansion + (1 << 20)
        var piece: [UInt8] = []
        var trailing = false
        try body.forEachPiece { input in
            var rest = input
            while !rest.isEmpty && !trailing {
                if inflater.finished {
                    guard format == .gzip, rest.first == 0x1F else {
                        trailing = true
                        break
                    }
                    inflater.reset()
                }
                piece.removeAll(keepingCapacity: true)
                let used = try inflater.inflate(rest, into: &piece, limit: 1 << 18)
                rest = rest.dropFirst(used)
                try output.append(piece)
                if output.count > limit { throw InflateFailure(reason: "expands more than \(maxExpansion) times") }
                if used == 0 && piece.isEmpty && !inflater.finished { break }
            }
        }
        while !inflater.finished {
            piece.removeAll(keepingCapacity: true)
            try inflater.inflate([][...], into: &piece, limit: 1 << 18)
            guard !piece.isEmpty else { throw InflateFailure(reason: "the compressed body ends early") }
            try output.append(piece)
            if output.count > limit { throw InflateFailure(reason: "expands more than \(maxExpansion) times") }
        }
        return output
    }
}
