import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcZim

/// The openZIM tools the tests check webarc against (Debian `zim-tools`), found on PATH.
enum ZimTools {
    /// The path of `name` on PATH, or nil.
    static func path(_ name: String) -> String? {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        return folders.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether zimwriterfs and zimdump are installed.
    static let available = path("zimwriterfs") != nil && path("zimdump") != nil
    /// The comment shown when tests that need them are skipped.
    static let skipReason: Comment = "zimwriterfs and zimdump not installed (apt-get install zim-tools)"

    /// What a tool printed (stdout and stderr) and its status.
    struct Result {
        var status: Int32
        var bytes: [UInt8]
        var output: String { String(decoding: bytes, as: UTF8.self) }
    }

    /// Runs a tool; returns its status and output.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) async throws -> Result {
        let executable = path(tool) ?? "/usr/bin/\(tool)"
        let run = try await onOwnThread { try runProgram(executable, arguments, mergingErrors: true) }
        return Result(status: run.status, bytes: Array(run.stdout))
    }
}

/// A small site: pages that link each other, a stylesheet, an image, a folder page, a name with a
/// space and one with non-ASCII letters, an empty file, and a symbolic link (a ZIM redirect).
enum ZimSite {
    static let files: [String: [UInt8]] = [
        "index.html": Array(
            "<!doctype html><html><head><title>Home &amp; away</title><link rel=stylesheet href=\"css/site.css\"></head><body><a href=\"docs/\">Docs</a> <img src=\"img/logo.png\"></body></html>"
                .utf8),
        "about.html": Array(
            "<html><head><title>About</title></head><body><a href=\"index.html\">home</a></body></html>".utf8),
        "css/site.css": Array("body { font-family: serif }".utf8),
        "img/logo.png": ZimIllustration.png(red: 200, green: 40, blue: 40),
        "docs/index.html": Array(
            "<html><head><title>Docs</title></head><body><a href=\"page%20one.html\">one</a></body></html>".utf8),
        "docs/page one.html": Array("<html><head><title>Page one</title></head><body>One</body></html>".utf8),
        "data/ünïcode.txt": Array("ünïcode\n".utf8),
        "empty.txt": [],
        "illustration.png": ZimIllustration.png(),
    ]

    /// Writes the site into `folder` of `scratch`, with `old.html` a link to `about.html`.
    static func write(in scratch: TemporaryFolder, folder: String = "site") throws -> String {
        for (name, bytes) in files { try scratch.write("\(folder)/\(name)", bytes) }
        try FileManager.default.createSymbolicLink(
            atPath: scratch.file("\(folder)/old.html"), withDestinationPath: "about.html")
        return scratch.file(folder)
    }

    /// The site as zimwriterfs packs it.
    static func zim(in scratch: TemporaryFolder) async throws -> String {
        let folder = try write(in: scratch)
        let zim = scratch.file("site.zim")
        let result = try await ZimTools.run(
            "zimwriterfs",
            [
                "--welcome=index.html", "--illustration=illustration.png", "--language=eng", "--title=Test site",
                "--description=A site for tests", "--creator=webarc tests", "--publisher=webarc", "--name=test_site",
                "--withoutFTIndex", folder, zim,
            ])
        #expect(result.status == 0, "zimwriterfs: \(result.output)")
        return zim
    }
}

/// Reading an archive in tests.
extension ArchiveReader {
    /// The body of the GET response at `url`, or nil when there is none.
    func responseBody(_ url: String) throws -> [UInt8]? {
        guard case .response(let response)? = try lookup(url: url)?.record else { return nil }
        return Array(try body(response.body))
    }

    /// Every record, by URL.
    func recordsByURL() throws -> [String: ArchiveRecord] {
        var records: [String: ArchiveRecord] = [:]
        try forEachEntry { records[$0.record.request.url] = $0.record }
        return records
    }
}
