import Foundation
import Testing
import WebArcTestSupport

/// `webarc info` reads the totals a 2.2.2 writer stores (spec §7.3 `Totals`) and walks the trees of
/// an older archive: both give the same description.
@Suite("webarc info: stored totals and walked ones")
struct InfoTotalsTests {
    static let vectors = CLIRunner.repository.appendingPathComponent("Spec/vectors/valid").path

    func info(_ name: String) async throws -> [String: Any] {
        let run = try await CLIRunner.runDetached(["info", Self.vectors + "/" + name + ".webarc", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        return try JSONSerialization.jsonObject(with: run.stdout) as! [String: Any]
    }

    @Test("an archive with totals and the same archive written without them (before 2.2.2) describe alike")
    func storedAndWalkedAgree() async throws {
        let stored = try await info("minimal")
        let walked = try await info("no-totals")
        for key in [
            "responses", "redirects", "tombstones", "chunks", "rawBytes", "distinctBodyBytes", "originCount",
        ] {
            #expect(stored[key] as? Int == walked[key] as? Int, "\(key)")
            #expect(stored[key] != nil, "\(key)")
        }
        #expect(stored["origins"] as? [String] == ["https://example.com"])
        #expect(walked["origins"] as? [String] == ["https://example.com"])
    }

    @Test("an update's description counts its own records and the responses whose body its base holds")
    func updateTotals() async throws {
        let update = try await info("update")
        #expect(update["tombstones"] as? Int == 1)
        #expect(update["baseBodyResponses"] as? Int == 1)
        #expect(update["newBodyResponses"] as? Int == 2)
    }

    @Test("the description puts each count's noun in the right number")
    func countsInWords() async throws {
        let minimal = try await CLIRunner.runDetached(["info", Self.vectors + "/minimal.webarc"])
        #expect(minimal.status == 0, "\(minimal.stderr)")
        #expect(minimal.text.contains("records      1: 1 response, 0 redirects\n"), "\(minimal.text)")
        #expect(minimal.text.contains("bodies       1 distinct in 1 chunk\n"), "\(minimal.text)")
        let update = try await CLIRunner.runDetached(["info", Self.vectors + "/update.webarc"])
        #expect(update.text.contains("records      4: 3 responses, 0 redirects, 1 tombstone\n"), "\(update.text)")
    }
}
