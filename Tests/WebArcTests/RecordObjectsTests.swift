import Foundation
import Testing
import WebArcTestSupport

@testable import WebArc

/// `RecordObjects.parse` with header lists checked but not kept (what `verify` asks for) against
/// the full parse: the same record but for its headers, or the same error, whatever the damage.
@Suite("Record objects")
struct RecordObjectsTests {
    /// The record with its header lists (its own and its request's) emptied.
    static func withoutHeaders(_ record: ArchiveRecord) -> ArchiveRecord {
        switch record {
        case .response(var response):
            response.headers = []
            response.request.headers = []
            return .response(response)
        case .redirect(var redirect):
            redirect.headers = []
            redirect.request.headers = []
            return .redirect(redirect)
        case .tombstone(var tombstone):
            tombstone.request.headers = []
            return .tombstone(tombstone)
        }
    }

    /// Both parses of `bytes`, when they hold an object at all.
    static func bothParses(
        _ bytes: [UInt8]
    ) -> (kept: Result<ArchiveRecord?, WebArcError>, checked: Result<ArchiveRecord?, WebArcError>)? {
        guard let object = try? DecodedObject(bytes, range: 0..<bytes.count, page: 3) else { return nil }
        func parse(_ keeping: Bool) -> Result<ArchiveRecord?, WebArcError> {
            Result {
                guard case .record(let record) = try RecordObjects.parse(object, keepingHeaders: keeping) else {
                    return nil
                }
                return record
            }.mapError { $0 as! WebArcError }
        }
        return (parse(true), parse(false))
    }

    @Test(
        "header lists checked, not kept: the same record but for its headers, or the same error, for every byte flipped"
    )
    func headersCheckedNotKept() throws {
        let request = RequestRecord(
            url: "http://localhost/caf%C3%A9?q=1", headers: [HTTPHeader("Accept", "text/html"), HTTPHeader("X-É", "ü")])
        let records: [ArchiveRecord] = [
            .response(
                ResponseRecord(
                    request: request, status: 200, reason: "OK",
                    headers: [HTTPHeader("Content-Type", "text/html"), HTTPHeader("ETag", "\"1\"")],
                    mimeType: "text/html", textEncoding: nil,
                    body: BodyReference(digest: BodyDigest(sixteen: Array(0..<16)), variant: 0), bodyLength: 5,
                    captureDate: nil)),
            .redirect(
                RedirectRecord(
                    request: request, status: 301, target: "http://localhost/",
                    headers: [HTTPHeader("Location", "http://localhost/")])),
        ]
        var random = SeededGenerator(seed: 53)
        var checked = 0
        for record in records {
            let bytes = RecordObjects.record(record).encoded()
            let clean = try #require(Self.bothParses(bytes))
            #expect(try clean.kept.get() == record)
            #expect(try clean.checked.get() == Self.withoutHeaders(record))
            for position in bytes.indices {
                for bit in [0, Int.random(in: 1..<8, using: &random)] {
                    var damaged = bytes
                    damaged[position] ^= UInt8(1 << bit)
                    // Also bytes that make a header text invalid UTF-8.
                    if bit > 0 && damaged[position] < 0x80 { damaged[position] |= 0x80 }
                    guard let (kept, headersChecked) = Self.bothParses(damaged) else { continue }
                    checked += 1
                    switch (kept, headersChecked) {
                    case (.success(let full), .success(let light)):
                        #expect(full.map(Self.withoutHeaders) == light, "byte \(position)")
                    case (.failure(let full), .failure(let light)):
                        #expect(full == light, "byte \(position)")
                    default:
                        Issue.record("byte \(position): \(kept) against \(headersChecked)")
                    }
                }
            }
        }
        #expect(checked > 100)
    }
}
