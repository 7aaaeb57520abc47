import Crypto
import Foundation

@testable import WebArcInterop

/// Builds ZIP and WACZ bytes for tests, independently of ``ZIPWriter``: members stored or
/// deflated (raw deflate cut out of a gzip member), the central directory and end record written
/// here field by field, so hostile variants can be made by changing one field.
enum ZIPFixture {
    struct Member {
        var name: String
        var bytes: [UInt8]
        var deflated = false
    }

    /// Where each member's local header ended up, and the central directory.
    struct Layout {
        var bytes: [UInt8]
        var localOffsets: [Int]
        var directoryOffset: Int
        var endOffset: Int
    }

    /// Raw deflate of `bytes`: a gzip member without its 10-byte header and 8-byte trailer.
    static func deflate(_ bytes: [UInt8]) -> [UInt8] {
        let gzip = WARCFixture.gzip(bytes)
        return Array(gzip[10..<(gzip.count - 8)])
    }

    static func crc(_ bytes: [UInt8]) -> UInt32 {
        var crc = CRC32()
        crc.update(bytes)
        return crc.value
    }

    /// The fields local and central headers share: flags, method, time, date, CRC-32, sizes, name length.
    static func fields(_ out: inout ZIPFieldWriter, _ member: Member, data: [UInt8]) {
        out.uint16(0x0800)
        out.uint16(member.deflated ? 8 : 0)
        out.uint16(0)
        out.uint16(0x21)
        out.uint32(crc(member.bytes))
        out.uint32(UInt32(data.count))
        out.uint32(UInt32(member.bytes.count))
        out.uint16(UInt16(member.name.utf8.count))
    }

    /// A ZIP of `members`, in order.
    static func zip(_ members: [Member]) -> Layout {
        var out = ZIPFieldWriter()
        var central = ZIPFieldWriter()
        var offsets: [Int] = []
        for member in members {
            let data = member.deflated ? deflate(member.bytes) : member.bytes
            let name = Array(member.name.utf8)
            offsets.append(out.bytes.count)
            out.uint32(0x0403_4B50)
            out.uint16(20)
            fields(&out, member, data: data)
            out.uint16(0)
            out.append(name)
            out.append(data)
            central.uint32(0x0201_4B50)
            central.uint16(20)
            central.uint16(20)
            fields(&central, member, data: data)
            central.uint16(0)
            central.uint16(0)
            central.uint16(0)
            central.uint16(0)
            central.uint32(0)
            central.uint32(UInt32(offsets.last!))
            central.append(name)
        }
        let directoryOffset = out.bytes.count
        out.append(central.bytes)
        let endOffset = out.bytes.count
        out.uint32(0x0605_4B50)
        out.uint16(0)
        out.uint16(0)
        out.uint16(UInt16(members.count))
        out.uint16(UInt16(members.count))
        out.uint32(UInt32(central.bytes.count))
        out.uint32(UInt32(directoryOffset))
        out.uint16(0)
        return Layout(bytes: out.bytes, localOffsets: offsets, directoryOffset: directoryOffset, endOffset: endOffset)
    }

    static func sha256(_ bytes: [UInt8]) -> String {
        "sha256:" + SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    /// A WACZ holding `warcs` (name → bytes, stored), a page list and a `datapackage.json` listing
    /// every member with its true digest unless `digests` overrides one (by path).
    static func wacz(
        warcs: [(String, [UInt8])], pages: [String]? = nil, mainPageURL: String? = nil, title: String? = nil,
        digests: [String: String] = [:], deflateSmall: Bool = true, extra: [Member] = []
    ) -> [UInt8] {
        var members = warcs.map { Member(name: "archive/" + $0.0, bytes: $0.1) }
        if let pages {
            let list = ([#"{"format": "json-pages-1.0", "id": "pages"}"#] + pages).joined(separator: "\n") + "\n"
            members.append(Member(name: "pages/pages.jsonl", bytes: Array(list.utf8), deflated: deflateSmall))
        }
        members += extra
        var package = WACZPackage(
            resources: members.map {
                WACZPackage.Resource(
                    name: $0.name, path: $0.name, hash: digests[$0.name] ?? sha256($0.bytes),
                    bytes: UInt64($0.bytes.count))
            }, title: title, mainPageURL: mainPageURL)
        package.created = "2024-05-01T10:00:00Z"
        let packageBytes = package.serialized()
        members.append(Member(name: "datapackage.json", bytes: packageBytes, deflated: deflateSmall))
        let digest = #"{"path": "datapackage.json", "hash": "\#(digests["datapackage.json"] ?? sha256(packageBytes))"}"#
        members.append(Member(name: "datapackage-digest.json", bytes: Array(digest.utf8), deflated: deflateSmall))
        return zip(members).bytes
    }

    /// Writes little-endian `value` of `width` bytes at `offset`.
    static func patch(_ bytes: inout [UInt8], at offset: Int, _ value: UInt64, width: Int) {
        for index in 0..<width { bytes[offset + index] = UInt8(truncatingIfNeeded: value >> (8 * index)) }
    }
}
