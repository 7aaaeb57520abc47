import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

#if canImport(Glibc)
import Glibc
#endif

/// The one write loop and the one rename every writer uses.
@Suite("File writing")
struct FileWritingTests {
    @Test("all bytes go at the file position or at an offset; a pipe takes more than its buffer in several writes")
    func writesAll() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("f.bin")
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0o600)
        #expect(fd >= 0)
        defer { close(fd) }
        var random = SeededGenerator(seed: 7)
        let first = random.bytes(300_000)
        #expect(FileWriting.writeAll(first, to: fd) == nil)
        #expect(FileWriting.writeAll(Array("ab".utf8), to: fd, at: 10) == nil)
        #expect(FileWriting.writeAll([], to: fd) == nil)
        var expected = first
        expected.replaceSubrange(10..<12, with: Array("ab".utf8))
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == expected)

        // A pipe holds 64 KiB: the writer's thread blocks and writes the rest as the reader drains it.
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        let big = random.bytes(1 << 20)
        let writeEnd = ends[1]
        let writer = Thread {
            _ = FileWriting.writeAll(big, to: writeEnd)
            close(writeEnd)
        }
        writer.start()
        var read: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = buffer.withUnsafeMutableBytes { Glibc.read(ends[0], $0.baseAddress!, $0.count) }
            if got <= 0 { break }
            read += buffer[0..<got]
        }
        close(ends[0])
        #expect(read == big)
    }

    @Test("a failed write gives its errno")
    func failedWrite() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("r.txt", "x")
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        #expect(FileWriting.writeAll(Array("y".utf8), to: fd) == EBADF)
    }

    @Test("rename replaces the target in one step; when it fails the temporary file is removed and the target named")
    func renameOnto() throws {
        let folder = try TemporaryFolder()
        let temporary = try folder.write(".t", "new")
        let target = try folder.write("target", "old")
        try FileWriting.rename(temporary, onto: target)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "new")
        #expect(try folder.names() == ["target"])

        let second = try folder.write(".t2", "x")
        let missing = folder.file("no-such-folder/target")
        #expect(throws: WebArcError.io(path: missing, operation: .creating("rename onto"), errno: ENOENT)) {
            try FileWriting.rename(second, onto: missing)
        }
        #expect(try folder.names() == ["target"])
    }
}
