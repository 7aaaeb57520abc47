import Foundation
import Testing
import WebArc
import WebArcRefresh
import WebArcTestSupport

/// A refresh writes the new archive by the old one's writer recipe, its keyed dictionary anchors
/// included (spec Appendix C step 13), so that applying the update codes again only the bodies near
/// a change; before, the refreshed archive fell back to every-32nd anchors.
// Ten minutes: in a full parallel run on two cores the refresh waits for the pool other suites hold
// (ScaleMemoryTests alone takes four minutes there).
@Suite(.serialized, .timeLimit(.minutes(10)))
struct RefreshAnchorTests {
    static let pages = 80

    /// Page `number`: shared boilerplate around text of its own, 2 KiB to 40 KiB long (as a
    /// documentation site's pages vary), so that some are anchor candidates and some are not.
    static func page(_ number: Int, edition: String = "") -> String {
        let boilerplate = "<nav><a href=\"/\">home</a> <a href=\"/docs\">docs</a></nav>\n"
        var text = "<html><body>\n" + boilerplate + "<h1>page \(number) \(edition)</h1>\n"
        let length = 2_000 + number * 7_919 % 38_000
        var line = 0
        while text.utf8.count < length {
            text += "<p>page \(number) line \(line)</p>\n"
            line += 1
        }
        return text + "</body></html>\n"
    }

    /// Packs the site with keyed (`rule`) or every-32nd (nil) anchors, refreshes it against a live
    /// site where page 2 changed and page 5 is gone, and applies the update; returns the apply's
    /// summary.
    func refreshAndApply(rule: AnchorPlan.KeyedRule?) async throws -> UpdateApplier.Summary {
        let folder = try TemporaryFolder()
        let server = try TestHTTPServer { request in
            switch request.target {
            case "/p002.html":
                return .init(headers: [("Content-Type", "text/html")], text: Self.page(2, edition: "second edition"))
            case "/p005.html": return .init(status: 404, text: "not found")
            default:
                guard request.target.hasPrefix("/p"), let number = Int(request.target.dropFirst(2).prefix(3)) else {
                    return .init(status: 404, text: "?")
                }
                return .init(headers: [("Content-Type", "text/html")], text: Self.page(number))
            }
        }
        defer { server.stop() }
        // The archive's URLs (its keys, which place keyed anchors) do not depend on the server's
        // port: the refresh maps them to where the site lives.
        let archived = "http://localhost/"
        let live = "http://127.0.0.1:\(server.port)/"
        let siteFolder = folder.file("site")
        try FileManager.default.createDirectory(atPath: siteFolder, withIntermediateDirectories: true)
        for number in 0..<Self.pages {
            try Data(Self.page(number).utf8).write(
                to: URL(fileURLWithPath: siteFolder + String(format: "/p%03d.html", number)))
        }
        let site = folder.file("site.webarc")
        var options = SitePacker.Options(baseURL: archived)
        options.anchorRule = rule
        _ = try SitePacker(options: options).pack(folder: siteFolder, to: site)

        let summary = try await ArchiveRefresher(archive: site, options: RefreshOptions(origin: (archived, live)))
            .write(to: folder.file("update.webarc"))
        #expect(summary.changed == 1 && summary.gone == 1 && summary.keptAfterError == 0, "\(summary)")
        let update = try ArchiveReader(path: folder.file("update.webarc"))
        #expect(
            try update.metadata.target?.archive.writer?.anchors == (rule?.anchorRule ?? .everyNth),
            "the refreshed archive keeps the rule")

        let applied = try UpdateApplier(stack: try LayerStack([update, try ArchiveReader(path: site)])).write(
            to: folder.file("refreshed.webarc"))
        let refreshed = try ArchiveReader(path: folder.file("refreshed.webarc"))
        #expect(refreshed.recordCount == Self.pages - 1)
        guard case .response(let edited)? = try refreshed.lookup(url: archived + "p002.html")?.record else {
            Issue.record("no p002.html")
            return applied
        }
        #expect(String(decoding: try refreshed.body(edited.body), as: UTF8.self).contains("second edition"))
        return applied
    }

    @Test(
        "refreshing a packed site keeps its keyed anchors: a page changed and one gone early cost the update's apply a few chunks, not one per later page"
    )
    func keyedAnchorsKept() async throws {
        let keyed = try await refreshAndApply(rule: .localMinimum)
        let everyNth = try await refreshAndApply(rule: nil)
        // Every-32nd anchors move after page 5: every later page but the anchors is coded again.
        #expect(everyNth.chunksCoded > Self.pages / 2, "\(everyNth)")
        #expect(
            keyed.chunksCoded <= 3 && keyed.chunksCoded < everyNth.chunksCoded, "keyed \(keyed), every 32nd \(everyNth)"
        )
    }
}
