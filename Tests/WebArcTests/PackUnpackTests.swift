import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// Pack a folder and unpack it again: the trees must be equal, byte for byte.
@Suite("Pack and unpack")
struct PackUnpackTests {
    static let oddNames = [
        "a b.html", "café.html", "cafe\u{301}.html", "100%.txt", "q?x=1.txt", "hash#tag.css", "amp&er;sand.js",
        "it's.txt", ".hidden", "日本語.html", "emoji-😀.txt", "plus+sign.txt", "tilde~.txt", "index.html",
    ]

    /// A seeded random tree: nested folders, odd names, duplicates and empty files.
    static func makeTree(at root: String, seed: UInt64) throws -> Int {
        var random = SeededGenerator(seed: seed)
        var files = 0
        let shared = random.text(3000)
        func fill(_ folder: String, depth: Int) throws {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            for _ in 0..<Int.random(in: 2...6, using: &random) {
                let name = oddNames[Int.random(in: 0..<oddNames.count, using: &random)]
                let content: [UInt8] =
                    switch Int.random(in: 0..<5, using: &random) {
                    case 0: []
                    case 1: shared
                    case 2: random.bytes(Int.random(in: 1...5000, using: &random))
                    default: random.text(Int.random(in: 1...40_000, using: &random))
                    }
                let path = folder + "/" + name
                if !FileManager.default.fileExists(atPath: path) { files += 1 }
                try Data(content).write(to: URL(fileURLWithPath: path))
            }
            if depth < 3 {
                for index in 0..<Int.random(in: 0...2, using: &random) {
                    try fill(folder + "/dir\(index) \(depth)", depth: depth + 1)
                }
            }
        }
        try fill(root, depth: 0)
        return files
    }

    @Test("random trees round-trip through pack and unpack", arguments: [11, 12, 13] as [UInt64])
    func randomTrees(seed: UInt64) throws {
        let folder = try TemporaryFolder()
        let site = folder.file("site")
        let count = try Self.makeTree(at: site, seed: seed)
        let summary = try SitePacker(options: .init()).pack(folder: site, to: folder.file("t.webarc"))
        #expect(summary.files == count)
        let reader = try ArchiveReader(path: folder.file("t.webarc"))
        #expect(ArchiveVerifier.verify(reader).passed)
        let unpacked = try SiteUnpacker().unpack(reader, into: folder.file("out"))
        #expect(unpacked.skipped.isEmpty, "\(unpacked.skipped)")
        #expect(unpacked.filesWritten == count)
        #expect(try Self.differences(site, folder.file("out")).isEmpty)
    }

    @Test("an empty folder packs to an empty archive that verifies and unpacks to nothing")
    func emptyFolder() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("empty"), withIntermediateDirectories: true)
        let summary = try SitePacker(options: .init()).pack(folder: folder.file("empty"), to: folder.file("e.webarc"))
        #expect(summary.files == 0 && summary.startURL == nil)
        let reader = try ArchiveReader(path: folder.file("e.webarc"))
        #expect(reader.recordCount == 0 && reader.bodyCount == 0)
        #expect(ArchiveVerifier.verify(reader).passed)
        #expect(try SiteUnpacker().unpack(reader, into: folder.file("out")).filesWritten == 0)
    }

    @Test("a file name that is not UTF-8 is listed, fails the pack, and is left out with skipUnreadable")
    func nonUTF8Name() throws {
        let folder = try TemporaryFolder()
        let site = folder.file("site")
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        try Data("ok".utf8).write(to: URL(fileURLWithPath: site + "/index.html"))
        // "caf\xE9.html": Latin-1, not UTF-8.
        let raw = Array((site + "/caf").utf8) + [0xE9] + Array(".html".utf8) + [0]
        let fd = raw.withUnsafeBufferPointer {
            open(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self), O_WRONLY | O_CREAT, 0o644)
        }
        #expect(fd >= 0)
        close(fd)
        #expect(
            throws: SitePacker.Failure.refused([
                ScanProblem(kind: .unreadable, path: "caf%E9.html", detail: "file name is not UTF-8")
            ])
        ) {
            try SitePacker(options: .init()).pack(folder: site, to: folder.file("a.webarc"))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("a.webarc")))
        let summary = try SitePacker(options: .init(skipUnreadable: true)).pack(
            folder: site, to: folder.file("a.webarc"))
        #expect(summary.files == 1 && summary.skipped.map(\.path) == ["caf%E9.html"])
    }

    @Test("many identical files are stored as one body")
    func identicalFiles() throws {
        let folder = try TemporaryFolder()
        let site = folder.file("site")
        try FileManager.default.createDirectory(atPath: site, withIntermediateDirectories: true)
        let same = Data(String(repeating: "the same page ", count: 500).utf8)
        for index in 0..<200 { try same.write(to: URL(fileURLWithPath: site + "/copy\(index).html")) }
        let summary = try SitePacker(options: .init()).pack(folder: site, to: folder.file("d.webarc"))
        #expect(summary.statistics.bodiesAdded == 200 && summary.statistics.bodiesStored == 1)
        #expect(try ArchiveReader(path: folder.file("d.webarc")).bodyCount == 1)
    }

    @Test(
        "a file's URL keeps unreserved bytes, sub-delimiters, ':', '@' and '/', and percent-encodes every other byte in upper case"
    )
    func fileURLs() {
        let packer = SitePacker(options: SitePacker.Options())
        #expect(
            packer.url(for: "a b/ü/100%/q?#[x]\"\\^`{|}<>.html")
                == "http://localhost/a%20b/%C3%BC/100%25/q%3F%23%5Bx%5D%22%5C%5E%60%7B%7C%7D%3C%3E.html")
        #expect(
            packer.url(for: "AZaz09-._~!$&'()*+,;=:@/index.html")
                == "http://localhost/AZaz09-._~!$&'()*+,;=:@/index.html")
        #expect(packer.url(for: "\u{7F}\u{1}") == "http://localhost/%7F%01")
        #expect(packer.url(for: "") == "http://localhost/")
    }

    @Test("a file's key without canonicalization (canonical base) equals URLKey.key's, for odd paths and several bases")
    func fileKeys() throws {
        var random = SeededGenerator(seed: 21)
        let pieces = [
            "a", "é", "😀", "%", "%2e", "%41", " ", "?", "#", "\\", ".", "...", ".x", "~", "!", "@", ":", "+", "=", "&",
            ";", "[", "\u{7F}",
            "\u{1}", "index.html", "A", "-_",
        ]
        var paths = ["", "index.html", "a/", "a/index.html"]
        for _ in 0..<600 {
            let segments = (0..<Int.random(in: 1...4, using: &random)).map { _ in
                (0..<Int.random(in: 1...3, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            }
            // A scanned path has no "." or ".." segment: those are the folder and its parent.
            guard !segments.contains(".") && !segments.contains("..") else { continue }
            paths.append(segments.joined(separator: "/") + (Bool.random(using: &random) ? "/" : ""))
        }
        // Canonical bases take the plain path; the others (upper-case host, default port, dot
        // segments, a query) go through canonicalization; both must give URLKey.key's bytes.
        for base in [
            "http://localhost/", "https://kiosk.example/docs/", "http://Example.COM:80/a/./b/../c/", "http://h/x?y=1/",
            "http://h/%7e/",
        ] {
            let packer = SitePacker(options: SitePacker.Options(baseURL: base))
            let keyOf = try packer.keyMaker()
            for path in paths {
                let url = packer.url(for: path)
                #expect(try keyOf(url) == Array(URLKey.key(method: "GET", url: url).utf8), "\(base) \(path)")
            }
        }
    }

    @Test("a folder's index.html answers at folder/ and folder redirects there")
    func folderIndex() throws {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(atPath: folder.file("site/docs"), withIntermediateDirectories: true)
        try Data("<p>docs</p>".utf8).write(to: URL(fileURLWithPath: folder.file("site/docs/index.html")))
        _ = try SitePacker(options: .init(baseURL: "https://kiosk.example/app")).pack(
            folder: folder.file("site"), to: folder.file("f.webarc"))
        let reader = try ArchiveReader(path: folder.file("f.webarc"))
        guard case .redirect(let redirect)? = try reader.lookup(url: "https://kiosk.example/app/docs")?.record else {
            Issue.record("no redirect at docs")
            return
        }
        #expect(redirect.status == 301 && redirect.target == "https://kiosk.example/app/docs/")
        guard case .response(let page)? = try reader.lookup(url: "https://kiosk.example/app/docs/")?.record else {
            Issue.record("no response at docs/")
            return
        }
        #expect(String(decoding: try reader.body(page.body), as: UTF8.self) == "<p>docs</p>")
        #expect(page.headers.value(for: "content-type") == "text/html; charset=utf-8")
        #expect(page.headers.value(for: "ETag") == page.body.etag)
        #expect(page.headers.value(for: "Last-Modified")?.hasSuffix("GMT") == true)
        #expect(try reader.metadata.startURL == "https://kiosk.example/app/docs/index.html")
    }

    static func differences(_ first: String, _ second: String) throws -> [String] {
        func files(_ root: String) -> [[UInt8]: Data] {
            var result: [[UInt8]: Data] = [:]
            for case let path as String in FileManager.default.enumerator(atPath: root)! {
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isFolder),
                    !isFolder.boolValue
                {
                    result[Array(path.utf8)] = FileManager.default.contents(atPath: root + "/" + path)
                }
            }
            return result
        }
        let a = files(first)
        let b = files(second)
        return Set(a.keys).union(b.keys).filter { a[$0] != b[$0] }.map { String(decoding: $0, as: UTF8.self) }.sorted()
    }
}
