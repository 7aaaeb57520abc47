import Foundation
import Testing
import WebArc
import WebArcTestSupport

/// A kiosk's `webarc serve site.webarc` while the file is replaced under it: copied over in place
/// (`cp new.webarc site.webarc`) or renamed over (`webarc apply … -o site.webarc`). The server
/// never crashes, never mixes the two versions, and serves the new one without a restart.
@Suite("Serving a local archive that is replaced at its path")
struct ServeReplacedFileTests {
    static let enabled = ServeCommandTests.binary != nil
    static let why: Comment = "webarc binary not built next to the tests: run swift build first"

    /// Release 2 of the fixture site: /small.txt changed, /added.txt new.
    static let changedSmall = Array("release 2 of small.txt".utf8)
    static let added = Array("only in release 2".utf8)

    /// Writes release 1 (the fixture) at site.webarc and release 2 at release2.webarc.
    static func releases(in folder: TemporaryFolder) throws -> (site: String, release2: String) {
        _ = try makeArchive(in: folder, name: "site.webarc", SiteFixture.records, startURL: "http://localhost/")
        let records =
            SiteFixture.records.filter {
                guard case .page(let url, _, _, _, _) = $0 else { return true }
                return url != "http://localhost/small.txt"
            } + [
                .page("http://localhost/small.txt", changedSmall, headers: [HTTPHeader("Content-Type", "text/plain")]),
                .page("http://localhost/added.txt", added, headers: [HTTPHeader("Content-Type", "text/plain")]),
            ]
        _ = try makeArchive(in: folder, name: "release2.webarc", records, startURL: "http://localhost/")
        return (folder.file("site.webarc"), folder.file("release2.webarc"))
    }

    /// Whether GET `target` answers 200 within a minute (asked again until it does).
    static func answers(_ port: Int, _ target: String) async throws -> Bool {
        try await waitUntil { try fetch(port, target).status == 200 }
    }

    @Test(
        "a file copied over in place: a read while it is cut short is an error, not a crash; then the new version is served",
        .enabled(if: enabled, why))
    func copiedOverInPlace() async throws {
        let folder = try TemporaryFolder()
        let (site, release2) = try Self.releases(in: folder)
        let serving = try ServeCommandTests.Serving([site, "--port", "0", "--recheck", "0.2"])
        #expect(try fetch(serving.port, "/small.txt").body == SiteFixture.small)

        // `cp` truncates the file first, then writes: a read in between finds nothing there.
        let handle = try #require(FileHandle(forWritingAtPath: site))
        try handle.truncate(atOffset: 0)
        let cut = try fetch(serving.port, "/style.css")
        #expect(cut.status == 500, "a read of a file cut short is the server's error")
        #expect(serving.process.isRunning, "the server survived its archive being cut short")

        try handle.write(contentsOf: Data(contentsOf: URL(fileURLWithPath: release2)))
        try handle.close()
        #expect(try await Self.answers(serving.port, "/added.txt"), "the check reopened the file copied over")
        #expect(try fetch(serving.port, "/added.txt").body == Self.added)
        // Cached from release 1 before the copy; the reload dropped it.
        #expect(try fetch(serving.port, "/small.txt").body == Self.changedSmall)
        #expect(try fetch(serving.port, "/style.css").body == Array(SiteFixture.css.utf8))

        let (status, log) = serving.stop(with: SIGTERM)
        #expect(status == 0, "\(log)")
        #expect(log.contains("serving the new version"), "\(log)")
    }

    @Test(
        "a file renamed over goes on being served as opened; with --recheck 0 nothing notices, SIGHUP reopens it at once",
        .enabled(if: enabled, why))
    func renamedOverAndHangup() async throws {
        // A second server of the same site checks every 0.2 s and is renamed over at the same
        // time: the time it takes to notice is the time this one had to, and did not.
        let folder = try TemporaryFolder()
        let (site, release2) = try Self.releases(in: folder)
        let checkedFolder = try TemporaryFolder()
        let (checkedSite, checkedRelease2) = try Self.releases(in: checkedFolder)
        let serving = try ServeCommandTests.Serving([site, "--port", "0", "--recheck", "0", "--quiet"])
        let checking = try ServeCommandTests.Serving([checkedSite, "--port", "0", "--recheck", "0.2", "--quiet"])
        defer { checking.stop(with: SIGTERM) }
        #expect(try fetch(serving.port, "/small.txt").body == SiteFixture.small)

        #expect(rename(release2, site) == 0 && rename(checkedRelease2, checkedSite) == 0)
        #expect(try await Self.answers(checking.port, "/added.txt"), "the checking server noticed the rename")
        // No check runs: the opened file (gone from its path) still answers, whole and unmixed.
        #expect(try fetch(serving.port, "/added.txt").status == 404)
        #expect(try fetch(serving.port, "/big.bin").body == SiteFixture.big)

        kill(serving.process.processIdentifier, SIGHUP)
        #expect(try await Self.answers(serving.port, "/added.txt"), "SIGHUP reopened the file")
        #expect(try fetch(serving.port, "/added.txt").body == Self.added)
        #expect(try fetch(serving.port, "/small.txt").body == Self.changedSmall)
        #expect(serving.process.isRunning, "SIGHUP reopens; it does not stop the server")

        let (status, log) = serving.stop(with: SIGTERM)
        #expect(status == 0)
        #expect(log.contains("reopened \(site): serving the new version"), "\(log)")
    }

    @Test(
        "with --trust, an unsigned file renamed over is refused with the reason and the signed version goes on being served",
        .enabled(if: enabled, why))
    func untrustedReplacement() async throws {
        let folder = try TemporaryFolder()
        let (site, release2) = try Self.releases(in: folder)
        let keygen = try await CLIRunnerLite.run(["keygen", "-o", folder.file("publisher")])
        let sign = try await CLIRunnerLite.run(["sign", site, "--key", folder.file("publisher.key")])
        #expect(keygen.status == 0 && sign.status == 0, "\(keygen.stderr) \(sign.stderr)")
        let serving = try ServeCommandTests.Serving([
            site, "--port", "0", "--recheck", "0.2", "--quiet", "--trust", folder.file("publisher.pub"),
        ])
        #expect(try fetch(serving.port, "/small.txt").body == SiteFixture.small)

        #expect(rename(release2, site) == 0)
        #expect(serving.waitForStderr(containing: "the new version is not served"), "the check saw the rename")
        #expect(try fetch(serving.port, "/added.txt").status == 404)
        // Not fetched before the rename, so read from the signed file now.
        #expect(try fetch(serving.port, "/big.bin").body == SiteFixture.big)

        let (status, log) = serving.stop(with: SIGTERM)
        #expect(status == 0)
        #expect(log.contains("the new version is not served") && log.contains("not trusted"), "\(log)")
        #expect(!log.contains("serving the new version"), "\(log)")
    }
}
