extension SiteUnpacker {
    /// A file to write, as the plan sorted by path holds it: its record's position in key order, the
    /// URL it answers, its origin folder (empty when that is no safe name) and path below it, its
    /// body entry (the copy in the record's leaf), and its modification time in seconds since 1970
    /// (nil: the time it is written).
    struct PlannedFile: SpilledSortElement, Sendable {
        var order: Int
        var url: String
        var origin: [UInt8]
        var segments: [[UInt8]]
        var body: BodyEntry
        var modified: Int64?

        /// The path under the output folder, as bytes, segment by segment.
        func path(withOrigin: Bool) -> [[UInt8]] { withOrigin ? [origin] + segments : segments }

        /// By origin, then path segment by segment (so that a folder's files follow it), each segment
        /// as bytes; then key order.
        static func precedes(_ lhs: PlannedFile, _ rhs: PlannedFile) -> Bool {
            func compare(_ a: [UInt8], _ b: [UInt8]) -> Int {
                for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
                return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
            }
            let origins = compare(lhs.origin, rhs.origin)
            if origins != 0 { return origins < 0 }
            for (a, b) in zip(lhs.segments, rhs.segments) {
                let order = compare(a, b)
                if order != 0 { return order < 0 }
            }
            if lhs.segments.count != rhs.segments.count { return lhs.segments.count < rhs.segments.count }
            return lhs.order < rhs.order
        }

        func encode(into writer: inout ByteWriter) {
            writer.write(UInt64(order))
            writer.writeLengthPrefixed(Array(url.utf8))
            writer.writeLengthPrefixed(origin)
            writer.write(UInt32(segments.count))
            for segment in segments { writer.writeLengthPrefixed(segment) }
            writer.write(UInt8(modified == nil ? 0 : 1))
            writer.write(modified ?? 0)
            writer.write(body.origin.page)
            writer.write(UInt64(body.origin.position))
            body.serialize(into: &writer)
        }

        static func decode(_ reader: inout ByteReader) throws -> PlannedFile {
            let order = Int(try reader.readUInt64())
            let url = String(decoding: reader.bytes[try reader.readLengthPrefixed(what: "url")], as: UTF8.self)
            let origin = Array(reader.bytes[try reader.readLengthPrefixed(what: "origin")])
            var segments: [[UInt8]] = []
            for _ in 0..<(try reader.readUInt32()) {
                segments.append(Array(reader.bytes[try reader.readLengthPrefixed(what: "segment")]))
            }
            let hasModified = try reader.readUInt8() == 1
            let modified = try reader.readInt64()
            let page = try reader.readUInt64()
            let position = Int(try reader.readUInt64())
            var body = try BodyEntry(parsing: &reader, page: page)
            body.origin.position = position
            return PlannedFile(
                order: order, url: url, origin: origin, segments: segments, body: body,
                modified: hasModified ? modified : nil)
        }

        var heldSize: Int {
            url.utf8.count + origin.count + segments.reduce(0) { $0 + $1.count + 32 } + body.encodedSize
                + body.chunks.count * 48 + 4 * 48 + 160
        }
    }

    /// The seconds since 1970 of the first `Last-Modified` header, when it is an HTTP date.
    static func lastModified(_ headers: [HTTPHeader]) -> Int64? {
        // Names compared as ASCII bytes: Foundation's case-insensitive compare goes through
        // NSString, once per header of every record.
        let wanted = "last-modified".utf8
        let header = headers.first { header in
            header.name.utf8.count == wanted.count
                && zip(header.name.utf8, wanted).allSatisfy { ($0 | ($0 &- 65 < 26 ? 0x20 : 0)) == $1 }
        }
        return header.flatMap { HTTPDate.parse($0.value) }
    }
}
