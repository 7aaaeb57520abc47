import Foundation
import Testing
import WebArc
import WebArcRefresh
import WebArcTestSupport

/// A refresh writes the new archive by the old one's writer recipe, its keyed dictionary anchors
/// included (spec Appendix C step 13): a page changed or gone early in the site moves only the
/// anchors near it, so applying the update codes again only the bodies near the change, not every
/// body after it.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct RefreshAnchorTests {
    /// A page of the site: shared boilerplate around text of its own, about 10 KiB (a candidate
    /// anchor's length).
    static func page(_ number: Int, edition: String = "") -> String {
        let boilerplate = String(repeating: "<nav><a href=\"/\">home</a> <a href=\"/docs\">docs</a></nav>\n", count: 100)
        let text = (0..<200).map { "<p>page \(number) line \($0) \(edition)</p>" }.joined(separator: "\n")
        return "<html><body>\n" + boilerplate + text + "\n</body></html>\n"
    }

    static let pages = 80

    @Test("refreshing a packed site keeps its keyed anchors: a page changed and one gone early cost the update's apply a few chunks, byte for byte")
    func keyedAnchorsKept() async throws {
        let folder = try RefreshTests.Folder()
        let server = try TestHTTPServer { request in
            switch request.target {
            case "/p002.html": return .init(headers: [("Content-Type", "text/html")], text: Self.page(2, edition: "second edition"))
            case "/p005.html": return .init(status: 404, text: "not found")
            default:
                guard request.target.hasPrefix("/p"), let number = Int(request.target.dropFirst(2).prefix(3)) else { return .init(status: 404, text: "?") }
                return .init(headers: [("Content-Type", "text/html")], text: Self.page(number))
            }
        }
        defer { server.stop() }
        let origin = "http://127.0.0.1:\(server.port)/"
        let siteFolder = folder.file("site")
        try FileManager.default.createDirectory(atPath: siteFolder, withIntermediateDirectories: true)
        for number in 0..<Self.pages {
            try Data(Self.page(number).utf8).write(to: URL(fileURLWithPath: siteFolder + String(format: "/p%03d.html", number)))
        }
        let site = folder.file("site.webarc")
        _ = try SitePacker(options: .init(baseURL: origin)).pack(folder: siteFolder, to: site)
        #expect(try ArchiveReader(path: site).metadata.writer?.anchors == .keyed)

        let summary = try await ArchiveRefresher(archive: site).write(to: folder.file("update.webarc"))
        #expect(summary.changed == 1 && summary.gone == 1 && summary.failed == 0, "\(summary)")
        let update = try ArchiveReader(path: folder.file("update.webarc"))
        #expect(try update.metadata.target?.archive.writer?.anchors == .keyed, "the refreshed archive keeps the keyed rule")

        let stack = try LayerStack([update, try ArchiveReader(path: site)])
        let applied = try UpdateApplier(stack: stack).write(to: folder.file("refreshed.webarc"))
        // Only the changed page is coded again; every-n-th anchors would move every anchor after
        // p005, and 55 first chunks were coded again.
        #expect(applied.chunksCoded <= 12 && applied.chunksReused >= 60, "\(applied)")
        let refreshed = try ArchiveReader(path: folder.file("refreshed.webarc"))
        #expect(refreshed.recordCount == Self.pages - 1)
        guard case .response(let edited)? = try refreshed.lookup(url: origin + "p002.html")?.record else {
            Issue.record("no p002.html")
            return
        }
        #expect(String(decoding: try refreshed.body(edited.body), as: UTF8.self).contains("second edition"))
    }
}
