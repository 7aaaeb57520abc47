import Foundation
import Testing
import WebArc
import WebArcServer
import WebArcTestSupport

/// Headless Chromium loads served pages through `Tools/browser-check/browser_check.py`; every
/// subresource must load, and every page must have loaded some, so that a page served without its
/// styles and scripts fails rather than passes. Skipped (reported as a skip, with the install
/// command) when chromium, python3 or the Python docs are missing; `Tools/test.sh` installs all three.
@Suite(.serialized) struct BrowserCheckTests {
    static let repository = repositoryRoot.path
    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let python = python3
    static let pydocs = "/usr/share/doc/python3.11/html"

    // The traits skip visibly, with the reason, when a tool is missing.
    @Test(
        .enabled(
            if: chromium != nil && python != nil,
            "chromium or python3 not installed: apt-get install -y chromium python3"))
    func sampleSiteLoadsWithNoFailedRequest() async throws {
        let summary = try await check(
            folder: Self.repository + "/Tools/sample-site", outsideLinks: .refuse,
            paths: ["/", "/about/", "/docs/guide.html"])
        #expect(summary.pages == 3)
    }

    @Test(
        .enabled(
            if: chromium != nil && python != nil && FileManager.default.fileExists(atPath: pydocs),
            "chromium, python3 or the Python docs missing: apt-get install -y chromium python3 python3.11-doc"))
    func pythonDocsStartPageLoadsWithNoFailedRequest() async throws {
        let summary = try await check(folder: Self.pydocs, outsideLinks: .follow, paths: ["/", "/library/index.html"])
        #expect(summary.pages == 2)
    }

    /// One page's line of the browser check's output.
    struct Page: Decodable {
        var url: String
        var loaded: Bool
        var subresources: Int
    }

    struct Summary: Decodable {
        var pages: Int
        var notLoaded: Int
        var failedSubresources: Int
        var subresources: Int
    }

    /// Packs `folder`, serves it, runs the browser check on `paths` and expects no failure.
    private func check(folder: String, outsideLinks: OutsideLinkPolicy, paths: [String]) async throws -> Summary {
        let temporary = try TemporaryFolder()
        let archive = temporary.file("site.webarc")
        _ = try SitePacker(options: .init(outsideLinks: outsideLinks)).pack(folder: folder, to: archive)
        let reader = try ArchiveReader(path: archive, mapped: true)
        return try await withServer([reader]) { server in
            let arguments =
                [Self.repository + "/Tools/browser-check/browser_check.py", "--out", temporary.file("shots")]
                + paths.map { server.url.dropLast() + $0 }
            // The browser runs for seconds: waited for on a thread of its own, as the server needs the pool.
            let run = try await onOwnThread { try runProgram(Self.python!, arguments) }
            let data = run.stdout
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
            guard lines.last?.contains("\"pages\"") == true else {
                Issue.record("browser check printed no summary: \(lines.joined(separator: "\n"))")
                return Summary(pages: 0, notLoaded: 0, failedSubresources: 0, subresources: 0)
            }
            let summary = try JSONDecoder().decode(Summary.self, from: Data((lines.last ?? "{}").utf8))
            let pages = try lines.dropLast().map { try JSONDecoder().decode(Page.self, from: Data($0.utf8)) }
            #expect(pages.count == paths.count)
            for page in pages {
                #expect(page.loaded, "\(page.url) did not load")
                #expect(page.subresources > 0, "\(page.url) loaded no stylesheet, script or image")
            }
            #expect(summary.subresources > 0)
            #expect(summary.notLoaded == 0, "\(lines.joined(separator: "\n"))")
            #expect(summary.failedSubresources == 0, "\(lines.joined(separator: "\n"))")
            #expect(run.status == 0, "\(run.stderr)")
            return summary
        }
    }
}
