import Testing
import WebArcInterop
import WebArcTestSupport

@testable import WebArcZim

@Suite("URLs and ZIM paths")
struct ZimPathsTests {
    let paths = ZimPaths(baseURL: "http://localhost/")

    @Test(
        "a path is encoded as pack encodes a file's path, and decoded back",
        arguments: [
            ("index.html", "http://localhost/index.html"),
            ("docs/page one.html", "http://localhost/docs/page%20one.html"),
            ("data/ünïcode.txt", "http://localhost/data/%C3%BCn%C3%AFcode.txt"),
            ("a/", "http://localhost/a/"),
            ("100%.html", "http://localhost/100%25.html"),
        ])
    func exact(path: String, url: String) {
        #expect(paths.url(forPath: path) == url)
        #expect(paths.path(forURL: url)! == (path, true))
    }

    @Test("URLs the rule does not give back keep a path and are marked inexact")
    func inexact() {
        #expect(paths.path(forURL: "http://localhost/search?q=a%20b")! == ("search?q=a%20b", false))
        #expect(paths.path(forURL: "https://cdn.example/x/y.js")! == ("cdn.example/x/y.js", false))
        #expect(paths.path(forURL: "http://localhost/%41.html")! == ("A.html", false))
        #expect(paths.path(forURL: "http://localhost/page.html#top")! == ("page.html", true))
    }

    @Test("the base URL itself and other schemes have no path")
    func none() {
        #expect(paths.path(forURL: "http://localhost/") == nil)
        #expect(paths.path(forURL: "urn:x:y") == nil)
        #expect(paths.path(forURL: "ftp://host/file") == nil)
    }

    @Test("a base without a final slash gets one")
    func baseSlash() {
        #expect(ZimPaths(baseURL: "https://kiosk.example/docs").baseURL == "https://kiosk.example/docs/")
    }
}

@Suite("ZIM outside WebArcZim")
struct ZimElsewhereTests {
    @Test("ArchiveImporter and ArchiveExporter refuse ZIM, naming WebArcZim; detection tells ZIM by its magic")
    func refused() throws {
        let folder = try TemporaryFolder()
        let zim = try folder.write("data.bin", [0x5A, 0x49, 0x4D, 0x04] + Array(repeating: 0, count: 76))
        #expect(try InputFormat.detect(path: zim) == .zim)
        #expect(throws: InteropError.zimNeedsLibzim(path: zim)) {
            try ArchiveImporter().run(inputs: [zim], output: folder.file("out.webarc"))
        }
        #expect(throws: InteropError.zimNeedsLibzim(path: folder.file("out.zim"))) {
            try ArchiveExporter().run(archive: folder.file("none.webarc"), format: .zim, output: folder.file("out.zim"))
        }
        #expect(InteropError.zimNeedsLibzim(path: zim).category == .badArgument)
    }
}
