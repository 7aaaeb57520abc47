import Foundation
import Testing

@testable import WebArc

#if canImport(Glibc)
import Glibc
#endif

/// The temporary-folder file a spool or a download spills into.
@Suite("Scratch file")
struct ScratchFileTests {
    @Test("named in TMPDIR, private, and removed when released; an unlinked one has no name from the start")
    func lifetime() throws {
        var path = ""
        do {
            let file = try ScratchFile(prefix: "webarc-test")
            path = file.path
            #expect(URL(fileURLWithPath: path).lastPathComponent.hasPrefix("webarc-test-"))
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o600)
            #expect(FileWriting.writeAll(Array("abc".utf8), to: file.descriptor) == nil)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == "abc")
        }
        #expect(access(path, F_OK) != 0)

        let unlinked = try ScratchFile(prefix: "webarc-test", unlinked: true)
        #expect(access(unlinked.path, F_OK) != 0)
        #expect(FileWriting.writeAll(Array("xyz".utf8), to: unlinked.descriptor, at: 0) == nil)
        #expect(try FileByteSource.read(unlinked.descriptor, at: 1, count: 2, path: "scratch") == Array("yz".utf8))
    }
}
