import Foundation
import WebArc
import WebArcTestSupport

/// One record of a test archive.
enum TestRecord {
    case text(String, String)
    case redirect(String, to: String, status: Int = 302)
    case tombstone(String)
}

/// Writes `records` into `folder/name` and opens the archive.
func makeArchive(
    in folder: TemporaryFolder, name: String = "test.webarc", _ records: [TestRecord]
) throws -> ArchiveReader {
    let path = folder.file(name)
    let writer = try ArchiveWriter(path: path)
    for record in records {
        switch record {
        case .text(let url, let text):
            let body = try writer.addBody(Array(text.utf8))
            try writer.add(
                ResponseRecord(
                    request: RequestRecord(url: url), headers: [HTTPHeader("Content-Type", "text/plain")], body: body))
        case .redirect(let url, let target, let status):
            try writer.add(
                RedirectRecord(
                    request: RequestRecord(url: url), status: status, target: target,
                    headers: [HTTPHeader("Location", target)]))
        case .tombstone(let url):
            try writer.add(TombstoneRecord(request: RequestRecord(url: url)))
        }
    }
    try writer.finish()
    return try ArchiveReader(path: path)
}

/// A match reduced to what tests compare.
struct ReplayMatchText: Equatable {
    var url: String
    var rule: String
    var text: String
}
