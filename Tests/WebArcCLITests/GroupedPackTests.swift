import Foundation
import Testing
import WebArcTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `pack --best` and `pack --groups` write grouped bodies (spec §6.3 slices); `verify`, `cat` and
/// `serve` read them through the reader like any other body.
@Suite("Grouped pack")
struct GroupedPackTests {
    @Test("pack --best and --groups: verify passes, cat and serve give each file's bytes, whole and by range")
    func packCatServe() async throws {
        let scratch = try TemporaryFolder()
        var generator = SeededGenerator(seed: 37)
        var files: [String: [UInt8]] = [:]
        for number in 0..<30 { files["page\(number).html"] = generator.text(500 + number * 700) }
        files["big.txt"] = generator.text(300_000)
        // Over pack's streaming threshold (1 MiB) and under --best's group limit: streamed, then grouped.
        files["huge.txt"] = generator.text(1_500_000)
        for (name, bytes) in files { _ = try scratch.write("site/" + name, bytes) }
        for (archive, flags) in [("best.webarc", ["--best"]), ("lz4.webarc", ["--groups", "64"])] {
            let pack = try await CLIRunner.runDetached(
                ["pack", scratch.file("site"), "-o", scratch.file(archive), "-q"] + flags, timeout: 300)
            #expect(pack.status == 0, "\(pack.stderr)")
            let verify = try await CLIRunner.runDetached(["verify", scratch.file(archive), "--json"])
            #expect(verify.status == 0, "\(verify.text)")
            let info = try await CLIRunner.runDetached(["info", scratch.file(archive), "--json"])
            // Grouped bodies are 2.4; its search index of version 4 makes it 2.6.
            #expect(info.text.contains("\"2.6\""), "\(info.text)")
            #expect(info.text.contains("grouped-bodies"), "\(info.text)")
            for name in ["page3.html", "page29.html", "big.txt", "huge.txt"] {
                let cat = try await CLIRunner.runDetached(["cat", scratch.file(archive), "http://localhost/" + name])
                #expect(cat.status == 0)
                let same = Array(cat.stdout) == files[name]!
                #expect(same, "\(archive) \(name) (\(cat.stdout.count) bytes)")
            }
            let served = try ServeProcess(
                binary: CLIRunner.binary, arguments: [scratch.file(archive), "--port", "0", "--quiet"])
            var request = URLRequest(url: URL(string: served.url + "page7.html")!)
            request.setValue("bytes=100-299", forHTTPHeaderField: "Range")
            let (body, response) = try await URLSession.shared.data(for: request)
            #expect((response as? HTTPURLResponse)?.statusCode == 206)
            let range = Array(body) == Array(files["page7.html"]![100..<300])
            #expect(range, "\(archive): \(body.count) bytes for 100-299")
            let (whole, _) = try await URLSession.shared.data(from: URL(string: served.url + "page12.html")!)
            let page = Array(whole) == files["page12.html"]!
            #expect(page, "\(archive): \(whole.count) bytes for page12.html")
            #expect(served.stop(with: SIGTERM).status == 0)
        }
    }
}
