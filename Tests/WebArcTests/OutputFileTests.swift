import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// The archive writer's output file: small appends are buffered, blocks of a quarter megabyte or
/// more are written from where they are, and write-out to disk starts every 8 MiB; none of it
/// may change a byte or its order.
@Suite("Output file")
struct OutputFileTests {
    @Test("buffered and direct appends, reads back, a roll back and write-out starts keep the bytes in order")
    func appendsInOrder() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("out.bin")
        let file = try OutputFile(targetPath: path, overwrite: false)
        var random = SeededGenerator(seed: 53)
        var expected: [UInt8] = []
        // Sizes on both sides of the direct-write threshold (256 KiB), about 12 MiB in all.
        for size in [10, 262_143, 262_144, 3, 1_000_000, 70_000, 262_145, 1] + Array(repeating: 300_000, count: 34) {
            let block = random.bytes(size)
            try size % 2 == 0 ? file.append(block) : file.append(block[...])
            expected += block
            #expect(file.length == UInt64(expected.count))
        }
        #expect(try file.read(at: 262_150, count: 40) == Array(expected[262_150..<262_190]))
        try file.rollBack(to: 5_000_000)
        expected.removeSubrange(5_000_000...)
        let tail = random.bytes(400_000)
        try file.append(tail)
        expected += tail
        try file.commit(overwrite: false)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == expected)
    }
}
