import Foundation
import Testing

@testable import WebArcZim

@Suite("ZIM header")
struct ZimHeaderTests {
    /// A header with every table inside a 4096-byte file.
    static func header(
        entries: UInt32 = 10, clusters: UInt32 = 2, pathPointers: UInt64 = 200, titleIndex: UInt64 = 300,
        clusterPointers: UInt64 = 400, mimeList: UInt64 = 80, mainPage: UInt32 = 0, checksum: UInt64 = 4080
    ) -> [UInt8] {
        func le(_ value: UInt64, _ width: Int) -> [UInt8] {
            (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
        }
        return le(UInt64(ZimHeader.magic), 4) + le(6, 2) + le(1, 2) + Array(repeating: 7, count: 16)
            + le(UInt64(entries), 4)
            + le(UInt64(clusters), 4) + le(pathPointers, 8) + le(titleIndex, 8) + le(clusterPointers, 8)
            + le(mimeList, 8)
            + le(UInt64(mainPage), 4) + le(UInt64(UInt32.max), 4) + le(checksum, 8)
    }

    @Test("fields decode in file order, little-endian")
    func parse() throws {
        let header = try ZimHeader(parsing: Self.header(), file: "a.zim")
        #expect(header.majorVersion == 6)
        #expect(header.minorVersion == 1)
        #expect(header.entryCount == 10)
        #expect(header.clusterCount == 2)
        #expect(header.pathPointerPosition == 200)
        #expect(header.titleIndexPosition == 300)
        #expect(header.clusterPointerPosition == 400)
        #expect(header.mimeListPosition == 80)
        #expect(header.mainPage == 0)
        #expect(header.layoutPage == UInt32.max)
        #expect(header.checksumPosition == 4080)
        try header.validate(fileSize: 4096, file: "a.zim")
    }

    @Test(
        "each inconsistent field is named",
        arguments: [
            (
                header(mimeList: 40),
                ZimError.badHeader(file: "a.zim", reason: "the mime list starts at 40, inside the header")
            ),
            (
                header(checksum: 5000),
                ZimError.truncated(file: "a.zim", what: "the checksum at 5000", needed: 5016, size: 4096)
            ),
            (
                header(checksum: 100),
                ZimError.badHeader(file: "a.zim", reason: "the checksum at 100 does not end the 4096-byte file")
            ),
            (
                header(clusters: 1000),
                ZimError.truncated(
                    file: "a.zim", what: "the cluster pointer list (1000 × 8 bytes at 400)", needed: 8416, size: 4096)
            ),
            (
                header(titleIndex: 20),
                ZimError.badHeader(file: "a.zim", reason: "the title index starts at 20, inside the header")
            ),
            (
                header(mainPage: 10),
                ZimError.badHeader(file: "a.zim", reason: "main page 10 is not one of the 10 entries")
            ),
        ])
    func invalid(bytes: [UInt8], expected: ZimError) throws {
        let header = try ZimHeader(parsing: bytes, file: "a.zim")
        #expect(throws: expected) { try header.validate(fileSize: 4096, file: "a.zim") }
    }

    @Test("no title index (all ones) and no main page (all ones) are allowed")
    func absentTables() throws {
        try ZimHeader(parsing: Self.header(titleIndex: UInt64.max, mainPage: UInt32.max), file: "a.zim").validate(
            fileSize: 4096, file: "a.zim")
    }

    @Test("a file that does not start with the magic number, or stops inside the header")
    func notAZim() {
        #expect(throws: ZimError.notAZim(file: "a.zim")) {
            try ZimHeader(parsing: Array("WARC/1.1".utf8), file: "a.zim")
        }
        #expect(throws: ZimError.truncated(file: "a.zim", what: "the header", needed: 80, size: 50)) {
            try ZimHeader(parsing: Array(Self.header().prefix(50)), file: "a.zim")
        }
    }
}
