import Foundation
import Testing
import WebArc
import WebArcTestSupport

/// `webarc serve UPDATE OLD`: an update made by diff served over its base without applying (spec §13).
@Suite struct LayeredServeTests {
    /// Writes a release of three pages, or the next one (edits `a`, deletes `b`, adds `c`).
    static func release(_ number: Int, in folder: TemporaryFolder) throws -> String {
        let writer = try ArchiveWriter(path: folder.file("v\(number).webarc"), options: .init(dictionaryInterval: 32))
        var pages = [
            ("http://localhost/a.html", "<p>page a, release 1</p>" + String(repeating: "text of a ", count: 500))
        ]
        pages.append(("http://localhost/keep.html", "<p>unchanged</p>"))
        if number == 1 {
            pages.append(("http://localhost/b.html", "<p>page b</p>"))
        } else {
            pages[0].1 = pages[0].1.replacingOccurrences(of: "release 1", with: "release 2")
            pages.append(("http://localhost/c.html", "<p>page c, new</p>"))
        }
        for (url, text) in pages {
            let body = try writer.addBody(Array(text.utf8))
            try writer.add(
                ResponseRecord(
                    request: RequestRecord(url: url), headers: [HTTPHeader("Content-Type", "text/html")],
                    mimeType: "text/html", body: body))
        }
        writer.metadata.startURL = "http://localhost/a.html"
        try writer.finish()
        return folder.file("v\(number).webarc")
    }

    @Test(
        .enabled(
            if: ServeCommandTests.binary != nil, "webarc binary not built next to the tests: run swift build first"))
    func servesTheLayeredView() async throws {
        let folder = try TemporaryFolder()
        let old = try Self.release(1, in: folder)
        let new = try Self.release(2, in: folder)
        let stack = try LayerStack([try ArchiveReader(path: old)])
        _ = try UpdateBuilder(old: stack, new: try ArchiveReader(path: new)).write(to: folder.file("u.webarc"))
        #expect(try ArchiveReader(path: folder.file("u.webarc")).trailer.requiredFeatures.contains(.deltaCodec))

        let serving = try ServeCommandTests.Serving([folder.file("u.webarc"), old, "--port", "0", "--quiet"])
        defer { _ = serving.stop(with: SIGTERM) }
        let changed = try fetch(serving.port, "/a.html")
        #expect(changed.status == 200)
        #expect(String(decoding: changed.body, as: UTF8.self).hasPrefix("<p>page a, release 2</p>"))
        #expect(try fetch(serving.port, "/keep.html").body == Array("<p>unchanged</p>".utf8))
        #expect(try fetch(serving.port, "/c.html").body == Array("<p>page c, new</p>".utf8))
        #expect(try fetch(serving.port, "/b.html").status == 404)

        // The update alone cannot serve: its base is named by digest.
        let alone = try await CLIRunnerLite.run(["serve", folder.file("u.webarc"), "--port", "0"])
        #expect(alone.status == 65, "\(alone.stderr)")
        #expect(alone.stderr.contains("update over 1 archive"), "\(alone.stderr)")
    }
}

/// Runs the `webarc` binary to completion (a serve that fails before listening, keygen, sign).
enum CLIRunnerLite {
    static func run(_ arguments: [String]) async throws -> ProgramResult {
        try await onOwnThread { try runProgram(ServeCommandTests.binary!, arguments) }
    }
}
