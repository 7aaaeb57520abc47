import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// `ArchiveReader.url(forPath:)`: a path resolved as `unzip -p` users name a member.
@Suite("Archive reader paths")
struct ArchiveReaderPathsTests {
    func archive(base: String?, start: String?) throws -> (TemporaryFolder, ArchiveReader) {
        let folder = try TemporaryFolder()
        try makeArchive(
            at: folder.file("a.webarc"), pages: [], metadata: ArchiveMetadata(startURL: start, baseURL: base))
        return (folder, try ArchiveReader(path: folder.file("a.webarc")))
    }

    @Test("a relative path resolves against the base URL's folder, a rooted one against its origin")
    func resolves() throws {
        let (_, reader) = try archive(
            base: "https://docs.example/py/3.11/", start: "https://docs.example/py/3.11/index.html")
        #expect(
            try reader.url(forPath: "library/functions.html") == "https://docs.example/py/3.11/library/functions.html")
        #expect(try reader.url(forPath: "/robots.txt") == "https://docs.example/robots.txt")
        #expect(try reader.url(forPath: "https://other.example/x") == nil)
        #expect(try reader.url(forPath: "mailto:someone@example.com") == nil)
    }

    @Test("without a base URL the start URL's folder serves; with neither there is no resolution")
    func fallbacks() throws {
        let (_, started) = try archive(base: nil, start: "http://localhost/site/index.html?lang=en")
        #expect(try started.url(forPath: "a b.html") == "http://localhost/site/a b.html")
        let (_, bare) = try archive(base: nil, start: nil)
        #expect(try bare.url(forPath: "index.html") == nil)
    }

    @Test("a scheme is a letter then letters, digits, +, - or .")
    func schemes() {
        #expect(ArchiveReader.hasScheme("http://x/"))
        #expect(ArchiveReader.hasScheme("svn+ssh://x"))
        #expect(!ArchiveReader.hasScheme("library/functions.html"))
        #expect(!ArchiveReader.hasScheme("1http://x"))
        #expect(!ArchiveReader.hasScheme("a b:c"))
        #expect(!ArchiveReader.hasScheme(":x"))
    }
}
