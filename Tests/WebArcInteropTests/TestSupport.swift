import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcInterop

/// The shared corpus of real captures (see its SOURCES.md).
///
/// It lives in `shared/corpus` beside the repository's folder (CI clones the repository next to
/// `shared/`); `WEBARC_CORPUS` names another folder. Tests that read it carry
/// `.enabled(if: Corpus.available, …)`, so a machine without it shows them as skipped, not passed.
enum Corpus {
    static let folder: String =
        ProcessInfo.processInfo.environment["WEBARC_CORPUS"]
        ?? repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus").standardizedFileURL.path

    /// Whether corpus tests run: the folder exists, or `CI` is set (CI always has `shared/` beside
    /// the clone, so there a missing corpus must fail the tests instead of skipping them).
    static let available: Bool = isPresent || ProcessInfo.processInfo.environment["CI"] != nil

    static var isPresent: Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) && isFolder.boolValue
    }

    /// The trait comment shown when corpus tests are skipped.
    static let skipReason: Comment = "corpus absent at \(folder) (set WEBARC_CORPUS to its folder)"

    /// The path of a corpus file.
    ///
    /// - Throws: ``Missing`` when the file is absent (a test only asks once ``available`` let it run).
    static func path(_ name: String) throws -> String {
        let path = folder + "/" + name
        guard FileManager.default.fileExists(atPath: path) else { throw Missing(path: path) }
        return path
    }

    /// A corpus file a running test needs is absent.
    struct Missing: Error, CustomStringConvertible {
        var path: String
        var description: String {
            "corpus file \(path) is absent (CI needs shared/corpus beside the clone; WEBARC_CORPUS names another folder)"
        }
    }
}

/// Builds WARC bytes for tests.
enum WARCFixture {
    /// One record: version line, fields, Content-Length (the block's, unless `contentLength` lies), block, CRLF CRLF.
    static func record(
        _ type: String, uri: String? = nil, id: String, date: String = "2024-05-01T10:00:00Z",
        fields: [(String, String)] = [],
        block: [UInt8], contentLength: Int? = nil, version: String = "WARC/1.1"
    ) -> [UInt8] {
        var text = "\(version)\r\nWARC-Type: \(type)\r\nWARC-Record-ID: <urn:uuid:\(id)>\r\nWARC-Date: \(date)\r\n"
        if let uri { text += "WARC-Target-URI: \(uri)\r\n" }
        for (name, value) in fields { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(contentLength ?? block.count)\r\n\r\n"
        return Array(text.utf8) + block + Array("\r\n\r\n".utf8)
    }

    /// An HTTP response message.
    static func response(
        _ status: Int = 200, reason: String = "OK", headers: [(String, String)], body: [UInt8]
    ) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(reason)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return Array((text + "\r\n").utf8) + body
    }

    /// An HTTP request message without a body.
    static func request(_ method: String = "GET", target: String, headers: [(String, String)]) -> [UInt8] {
        var text = "\(method) \(target) HTTP/1.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return Array((text + "\r\n").utf8)
    }

    /// `records` gzip-compressed one member each (WARC Annex D).
    static func gzipPerRecord(_ records: [[UInt8]]) -> [UInt8] {
        let writer = GzipWriter()
        var output: [UInt8] = []
        for record in records {
            writer.compress(record, into: &output)
            writer.finishMember(into: &output)
        }
        return output
    }

    /// `bytes` as one gzip member.
    static func gzip(_ bytes: [UInt8]) -> [UInt8] { gzipPerRecord([bytes]) }

    /// `body` with chunked transfer framing, in chunks of `size`.
    static func chunked(_ body: [UInt8], size: Int) -> [UInt8] {
        var output: [UInt8] = []
        var start = 0
        while start < body.count {
            let end = min(start + size, body.count)
            output += Array((String(end - start, radix: 16) + "\r\n").utf8) + body[start..<end] + [0x0D, 0x0A]
            start = end
        }
        return output + Array("0\r\n\r\n".utf8)
    }
}

/// Every record of an archive with its body, in key order, for record-by-record comparisons.
struct ArchiveDump: Equatable, CustomStringConvertible {
    struct Item: Equatable {
        var key: String
        var kind: String
        var status: Int
        var headers: [HTTPHeader]
        var target: String?
        var body: [UInt8]?
        var method: String
        var requestHeaders: [HTTPHeader]
        var captureDate: Date?

        /// The item as WARC export gives it back: no request `Content-Length` or
        /// `Transfer-Encoding`, as no request body is written (`Spec/interop.md` §7.1).
        var withoutRequestBodyFraming: Item {
            var copy = self
            copy.requestHeaders = requestHeaders.removing("Content-Length").removing("Transfer-Encoding")
            return copy
        }
    }

    var items: [Item]

    init(_ path: String) throws {
        let reader = try ArchiveReader(path: path)
        var items: [Item] = []
        try reader.forEachEntry { entry in
            switch entry.record {
            case .response(let response):
                items.append(
                    Item(
                        key: entry.key, kind: "response", status: response.status, headers: response.headers,
                        target: nil,
                        body: Array(try reader.body(response.body)), method: response.request.method,
                        requestHeaders: response.request.headers, captureDate: response.captureDate))
            case .redirect(let redirect):
                items.append(
                    Item(
                        key: entry.key, kind: "redirect", status: redirect.status, headers: redirect.headers,
                        target: redirect.target,
                        body: nil, method: redirect.request.method, requestHeaders: redirect.request.headers,
                        captureDate: redirect.captureDate))
            case .tombstone:
                break
            }
        }
        self.items = items
    }

    var description: String { items.map { "\($0.kind) \($0.status) \($0.key)" }.joined(separator: "\n") }

    /// The first item with `key`.
    subscript(key: String) -> Item? { items.first { $0.key == key } }
}

/// Imports `inputs` into a new archive in `folder` and returns the summary and the archive path.
func importFiles(
    _ inputs: [String], in folder: TemporaryFolder, name: String = "out.webarc",
    options: ImportOptions = ImportOptions()
) throws -> (summary: ImportSummary, path: String) {
    let output = folder.file(name)
    return (try ArchiveImporter(options: options).run(inputs: inputs, output: output), output)
}
