/// The counts and sums a writer stores in the metadata so that describing an archive reads no
/// tree: its records by class, their bodies' bytes, its distinct bodies and chunks, its origins.
///
/// They count this archive alone: for an update, its own records (tombstones included) and the
/// body entries of its own body tree, whichever layer their chunks lie in.
///
/// Spec: §7.3 `Totals`.
public struct ArchiveTotals: Equatable, Sendable {
    /// Records of class `Response`.
    public var responses: UInt64
    /// Records of class `Redirect`.
    public var redirects: UInt64
    /// Records of class `Tombstone`.
    public var tombstones: UInt64
    /// The sum of the responses' `bodyLength`, duplicates included (`UInt64.max` when it does not fit).
    public var responseBytes: UInt64
    /// The sum of the body tree's entries' lengths: the distinct bodies' bytes (`UInt64.max` when it
    /// does not fit).
    public var bodyBytes: UInt64
    /// The sum of the body tree's entries' chunk counts.
    public var chunks: UInt64
    /// The distinct origins of the records' keys.
    public var originCount: UInt64
    /// The first ``listedOrigins`` origins in byte order (all of them when there are no more).
    public var origins: [String]
    /// In an update archive: the responses whose body brings no chunk of this archive (every chunk
    /// entry of its body entry lies in a base). Nil in an archive without bases.
    public var baseBodyResponses: UInt64?

    /// How many origins ``origins`` lists at most, so that the metadata page stays small enough
    /// to arrive with the read at open (spec §14).
    public static let listedOrigins = 32

    /// Makes totals.
    public init(
        responses: UInt64 = 0, redirects: UInt64 = 0, tombstones: UInt64 = 0, responseBytes: UInt64 = 0,
        bodyBytes: UInt64 = 0, chunks: UInt64 = 0, originCount: UInt64 = 0, origins: [String] = [],
        baseBodyResponses: UInt64? = nil
    ) {
        self.responses = responses
        self.redirects = redirects
        self.tombstones = tombstones
        self.responseBytes = responseBytes
        self.bodyBytes = bodyBytes
        self.chunks = chunks
        self.originCount = originCount
        self.origins = origins
        self.baseBodyResponses = baseBodyResponses
    }

    /// A record key's origin: its canonical URL (what follows its first space) up to the first `/`
    /// after `://`, or nil when the URL has no `://`.
    public static func origin(ofKey key: some StringProtocol) -> String? {
        // Keys are ASCII as a rule: their bytes are scanned directly (Foundation's `range(of:)`
        // was 3.5 % of a verify). Other keys keep the search by Characters, where a combining
        // mark after `/` or a space makes another Character.
        let scanned = key.utf8.withContiguousStorageIfAvailable { bytes -> ASCIIScan in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return .notASCII }
            let start = (bytes.firstIndex(of: UInt8(ascii: " ")) ?? -1) + 1
            var index = start
            while index + 2 < bytes.count {
                if bytes[index] == UInt8(ascii: ":"), bytes[index + 1] == UInt8(ascii: "/"),
                    bytes[index + 2] == UInt8(ascii: "/")
                {
                    let host = index + 3
                    let end = bytes[host...].firstIndex(of: UInt8(ascii: "/")) ?? bytes.count
                    return .origin(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self))
                }
                index += 1
            }
            return .noOrigin
        }
        switch scanned {
        case .origin(let origin)?: return origin
        case .noOrigin?: return nil
        case .notASCII?, nil:
            let canonical = key.firstIndex(of: " ").map { key[key.index(after: $0)...] } ?? key[...]
            guard let separator = canonical.range(of: "://") else { return nil }
            let end = canonical[separator.upperBound...].firstIndex(of: "/") ?? canonical.endIndex
            return String(canonical[..<end])
        }
    }

    /// What a scan of a key's bytes found.
    private enum ASCIIScan {
        case origin(String), noOrigin, notASCII
    }

    /// Sums records and body entries into totals, in any order: what a writer stores and what a
    /// verifier or a reader without stored totals computes.
    package struct Counter {
        private var totals = ArchiveTotals()
        private var baseBodyResponses: UInt64 = 0
        private var origins = Set<String>()

        package init() {}

        /// Counts a record under `key` (its canonical key); for a response, whether every chunk
        /// entry of its body lies in a base.
        package mutating func add(_ record: ArchiveRecord, key: some StringProtocol, bodyInBases: Bool) {
            switch record {
            case .response(let response):
                totals.responses += 1
                totals.responseBytes = Self.sum(totals.responseBytes, response.bodyLength)
                if bodyInBases { baseBodyResponses += 1 }
            case .redirect: totals.redirects += 1
            case .tombstone: totals.tombstones += 1
            }
            if let origin = ArchiveTotals.origin(ofKey: key) { origins.insert(origin) }
        }

        /// Counts a body entry of the body tree.
        package mutating func add(body: BodyEntry) {
            totals.bodyBytes = Self.sum(totals.bodyBytes, body.length)
            totals.chunks += UInt64(body.chunkCount)
        }

        /// Counts what `other` counted (records and body entries counted apart, then together).
        package mutating func add(_ other: Counter) {
            totals.responses += other.totals.responses
            totals.redirects += other.totals.redirects
            totals.tombstones += other.totals.tombstones
            totals.responseBytes = Self.sum(totals.responseBytes, other.totals.responseBytes)
            totals.bodyBytes = Self.sum(totals.bodyBytes, other.totals.bodyBytes)
            totals.chunks += other.totals.chunks
            baseBodyResponses += other.baseBodyResponses
            origins.formUnion(other.origins)
        }

        /// The totals; `layered` (an archive with bases) gives them ``baseBodyResponses``.
        package func totals(layered: Bool) -> ArchiveTotals {
            var result = totals
            result.originCount = UInt64(origins.count)
            result.origins = Array(
                origins.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }.prefix(ArchiveTotals.listedOrigins))
            result.baseBodyResponses = layered ? baseBodyResponses : nil
            return result
        }

        /// `a + b`, or `UInt64.max` when the sum does not fit.
        static func sum(_ a: UInt64, _ b: UInt64) -> UInt64 {
            let (total, overflow) = a.addingReportingOverflow(b)
            return overflow ? .max : total
        }
    }

    /// The first field in which `self` (stored) differs from `walked` (counted from the trees), as
    /// the spec names it, with both values; nil when they agree.
    package func firstDifference(from walked: ArchiveTotals) -> (field: String, stored: String, walked: String)? {
        let fields: [(String, String, String)] = [
            ("responses", "\(responses)", "\(walked.responses)"),
            ("redirects", "\(redirects)", "\(walked.redirects)"),
            ("tombstones", "\(tombstones)", "\(walked.tombstones)"),
            ("responseBytes", "\(responseBytes)", "\(walked.responseBytes)"),
            ("bodyBytes", "\(bodyBytes)", "\(walked.bodyBytes)"),
            ("chunks", "\(chunks)", "\(walked.chunks)"),
            ("originCount", "\(originCount)", "\(walked.originCount)"),
            ("origins", origins.joined(separator: " "), walked.origins.joined(separator: " ")),
            (
                "baseBodyResponses", baseBodyResponses.map { "\($0)" } ?? "absent",
                walked.baseBodyResponses.map { "\($0)" } ?? "absent"
            ),
        ]
        return fields.first { $0.1 != $0.2 }.map { (field: $0.0, stored: $0.1, walked: $0.2) }
    }
}
