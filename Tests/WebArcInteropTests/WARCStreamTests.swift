import Testing
import WebArcTestSupport

@testable import WebArcInterop

@Suite("WARCStream: positions in plain and gzip files")
struct WARCStreamTests {
    @Test("a byte's location names its gzip member and the offset inside it")
    func locations() throws {
        let folder = try TemporaryFolder()
        let parts = [Array("first member\n".utf8), Array("second\n".utf8), Array("third\n".utf8)]
        let members = parts.map { WARCFixture.gzip($0) }
        let path = try folder.write("m.gz", members.flatMap { $0 })
        let stream = try WARCStream(file: try InputFile(path: path), gzip: true)
        #expect(try stream.fill())
        #expect(stream.position == WARCStream.Position(member: 0, inside: 0))
        try stream.skip(UInt64(parts[0].count + 3))
        #expect(stream.position == WARCStream.Position(member: UInt64(members[0].count), inside: 3))
        #expect(stream.location == InputLocation(file: path, offset: UInt64(members[0].count), decompressedOffset: 3))
        try stream.seek(to: WARCStream.Position(member: UInt64(members[0].count + members[1].count), inside: 2))
        #expect(try stream.fill())
        #expect(Array(stream.available) == Array("ird\n".utf8))
        try stream.seek(to: WARCStream.Position(member: 0, inside: 6))
        #expect(try stream.fill())
        #expect(Array(stream.available.prefix(6)) == Array("member".utf8))
        #expect(stream.membersStarted >= 1)
    }

    @Test("zero padding after the last member is the end; other bytes are an error")
    func trailingBytes() throws {
        let folder = try TemporaryFolder()
        let padded = try folder.write("p.gz", WARCFixture.gzip(Array("x".utf8)) + [0, 0, 0, 0])
        let stream = try WARCStream(file: try InputFile(path: padded), gzip: true)
        #expect(try stream.skip(100) == 1)
        let garbage = try folder.write("g.gz", WARCFixture.gzip(Array("x".utf8)) + Array("junk".utf8))
        let other = try WARCStream(file: try InputFile(path: garbage), gzip: true)
        #expect(throws: InteropError.self) { try other.skip(100) }
    }
}
