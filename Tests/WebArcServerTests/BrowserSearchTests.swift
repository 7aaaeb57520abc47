import Foundation
import Testing
import WebArcTestSupport

/// A kiosk visitor searches in headless Chromium (`Tools/browser-check/search_check.py`): the
/// sample site packed by `webarc pack` (with its search index) and served by `webarc serve
/// --search-box`; the visitor types a query into the box on the start page, gets the results
/// page, and opens the first result. Skipped, with the install command, when chromium or python3
/// is missing; `Tools/test.sh` installs both.
@Suite(.serialized) struct BrowserSearchTests {
    @Test(
        .enabled(
            if: BrowserCheckTests.chromium != nil && BrowserCheckTests.python != nil && ServeCommandTests.binary != nil,
            "chromium, python3 or the webarc binary missing: apt-get install -y chromium python3; swift build"))
    func typeAQuerySeeResultsOpenOne() async throws {
        let folder = try TemporaryFolder()
        let archive = folder.file("site.webarc")
        let pack = try await onOwnThread {
            try runProgram(
                ServeCommandTests.binary!,
                ["pack", BrowserCheckTests.repository + "/Tools/sample-site", "-o", archive, "-q"])
        }
        #expect(pack.status == 0, "\(pack.stderr)")
        let serving = try ServeProcess([archive, "--port", "0", "--quiet", "--search-box"])
        defer { _ = serving.stop(with: SIGTERM) }

        let arguments = [
            BrowserCheckTests.repository + "/Tools/browser-check/search_check.py", "--query", "bicycles",
            "--shot", folder.file("results.png"), serving.url,
        ]
        let check = try await onOwnThread { try runProgram(BrowserCheckTests.python!, arguments) }
        let data = check.stdout
        let report = try #require(
            try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(String(decoding: data, as: UTF8.self))")
        #expect(report["box"] as? Bool == true)
        #expect((report["resultsURL"] as? String)?.hasSuffix("/_webarc/search?q=bicycles") == true)
        #expect((report["results"] as? Int).map { $0 >= 1 } == true)
        let first = try #require(report["first"] as? [String: Any])
        #expect((first["href"] as? String)?.hasSuffix("/docs/guide.html") == true)
        #expect((first["marked"] as? [String])?.contains("Bicycles") == true)
        #expect(report["openedURL"] as? String == first["href"] as? String)
        #expect((report["openedTitle"] as? String)?.hasPrefix("Visitor guide") == true)
        #expect(check.status == 0, "\(check.stderr)")
        let shot = try FileManager.default.attributesOfItem(atPath: folder.file("results.png"))[.size] as? Int
        #expect((shot ?? 0) > 1000)
    }
}
