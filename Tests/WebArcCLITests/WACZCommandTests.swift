import Foundation
import Testing
import WebArcTestSupport

/// `webarc export --format wacz` and `webarc import FILE.wacz` end to end with the real binary:
/// the sample site through a WACZ and back, and hostile WACZs refused with exit 65 and one line.
@Suite("webarc and WACZ", .serialized)
struct WACZCommandTests {
    /// The sample site packed, exported as a WACZ; returns the archive and the WACZ.
    static func wacz(in scratch: TemporaryFolder) async throws -> (archive: String, wacz: String) {
        let archive = scratch.file("site.webarc"), wacz = scratch.file("site.wacz")
        let site = CLIRunner.repository.appendingPathComponent("Tools/sample-site").path
        #expect(try await CLIRunner.runDetached(["pack", site, "-o", archive, "--quiet"]).status == 0)
        let exported = try await CLIRunner.runDetached(["export", archive, "--format", "wacz", "-o", wacz])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stderr.contains("to \(wacz)"))
        return (archive, wacz)
    }

    @Test("webarc → WACZ → webarc lists the same records, bodies and start page")
    func roundTrip() async throws {
        let scratch = try TemporaryFolder()
        let (archive, wacz) = try await Self.wacz(in: scratch)
        let back = scratch.file("back.webarc")
        let imported = try await CLIRunner.runDetached(["import", wacz, "-o", back, "--json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        let summary = try #require(try JSONSerialization.jsonObject(with: imported.stdout) as? [String: Any])
        #expect((summary["inputs"] as? [[String: Any]])?.first?["format"] as? String == "wacz")
        #expect(summary["startURL"] as? String == "http://localhost/")
        // Every record: method, status, URL, length and MD5 of its body.
        #expect(try await CLIRunner.runDetached(["ls", back]).text == CLIRunner.runDetached(["ls", archive]).text)
    }

    @Test(
        "hostile WACZs fail with exit 65 and a message naming the problem",
        arguments: [
            "truncated", "climbing name", "damaged WARC",
        ])
    func hostile(_ kind: String) async throws {
        let scratch = try TemporaryFolder()
        var bytes = await [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Self.wacz(in: scratch).wacz)))
        let expected: String
        switch kind {
        case "truncated":
            bytes.removeLast(30)
            expected = "is not a readable ZIP: no end of central directory record: the file is truncated or not a ZIP"
        case "climbing name":
            let name = Array("archive/data.warc.gz".utf8), hostile = Array("../../../../datax.gz".utf8)
            for index in 0...(bytes.count - name.count) where Array(bytes[index..<index + name.count]) == name {
                bytes.replaceSubrange(index..<index + name.count, with: hostile)
            }
            expected = "is not a readable ZIP: entry \"../../../../datax.gz\" climbs out of its folder with \"..\""
        default:
            // A byte in the middle of the WARC, which the ZIP stores as it is.
            bytes[bytes.count / 3] ^= 0x55
            expected = "archive/data.warc.gz does not match its digest in datapackage.json"
        }
        let path = try scratch.write("hostile.wacz", bytes)
        let result = try await CLIRunner.runDetached(["import", path, "-o", scratch.file("out.webarc")])
        #expect(result.status == 65, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("webarc: error: ") && result.stderr.contains(expected), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out.webarc")))
    }
}
