import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

#if os(Linux)
import Glibc

@Suite("Unnamed files (O_TMPFILE), as unpack writes them")
struct UnnamedFileTests {
    // O_TMPFILE is Linux's, and a portable run (WEBARC_PORTABLE=1) never makes unnamed files.
    @Test(
        "an unnamed file is invisible until linked, then holds its bytes under its name",
        .enabled(if: !Platform.portable, "a portable run makes no unnamed files"))
    func linkNames() throws {
        let folder = try TemporaryFolder()
        let fd = try #require(UnnamedFile.create(in: folder.path))
        defer { close(fd) }
        let bytes = Array("<h1>kiosk</h1>".utf8)
        #expect(bytes.withUnsafeBytes { Platform.write(fd, $0.baseAddress!, bytes.count) } == bytes.count)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        #expect(UnnamedFile.link(fd, to: folder.file("index.html")) == 0)
        #expect(FileManager.default.contents(atPath: folder.file("index.html")) == Data(bytes))
    }

    @Test(
        "linking never replaces a file or follows a symbolic link in the way",
        .enabled(if: !Platform.portable, "a portable run makes no unnamed files"))
    func linkRefusesExisting() throws {
        let folder = try TemporaryFolder()
        try Data("old".utf8).write(to: URL(fileURLWithPath: folder.file("file")))
        try FileManager.default.createSymbolicLink(
            atPath: folder.file("link"), withDestinationPath: folder.file("elsewhere"))
        let fd = try #require(UnnamedFile.create(in: folder.path))
        defer { close(fd) }
        #expect(UnnamedFile.link(fd, to: folder.file("file")) == EEXIST)
        #expect(UnnamedFile.link(fd, to: folder.file("link")) == EEXIST)
        #expect(FileManager.default.contents(atPath: folder.file("file")) == Data("old".utf8))
        #expect(!FileManager.default.fileExists(atPath: folder.file("elsewhere")))
    }

    @Test(
        "a portable run makes no unnamed file: unpack keeps its temporary names",
        .enabled(if: Platform.portable, "runs in the portable pass (WEBARC_PORTABLE=1)"))
    func portable() throws {
        let folder = try TemporaryFolder()
        #expect(UnnamedFile.create(in: folder.path) == nil)
    }
}
#endif
