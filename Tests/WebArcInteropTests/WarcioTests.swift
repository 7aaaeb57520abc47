import Crypto
import Foundation
import Testing
import WebArc

@testable import WebArcInterop

/// Checks against warcio, the tool web archivists already trust: exported WARCs pass
/// `warcio check` and index with `warcio index`, and every payload webarc imports equals the one
/// warcio reads. warcio is installed from PyPI into a virtual environment in a temporary folder;
/// the tests are skipped with a message when that fails (no network, no `python3 -m venv`).
/// The environment is kept as `$TMPDIR/webarc-warcio-venv` for the next run.
@Suite("warcio agrees", .serialized)
struct WarcioTests {
    /// The virtual environment's `bin` folder, kept in the temporary directory and reused by later
    /// runs once warcio imports from it; nil when warcio could not be installed.
    static let bin: String? = {
        let folder = NSTemporaryDirectory() + "webarc-warcio-venv"
        if run(folder + "/bin/python", ["-c", "import warcio"]).status == 0 { return folder + "/bin" }
        try? FileManager.default.removeItem(atPath: folder)
        guard run("/usr/bin/env", ["python3", "-m", "venv", folder]).status == 0 else {
            print("skipped: python3 -m venv failed; install python3-venv to run the warcio checks")
            return nil
        }
        let install = run(folder + "/bin/pip", ["install", "--quiet", "warcio"])
        guard install.status == 0 else {
            print("skipped: pip install warcio failed (\(install.error.prefix(200))); the warcio checks need PyPI")
            return nil
        }
        return folder + "/bin"
    }()

    static func run(_ executable: String, _ arguments: [String]) -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        do { try process.run() } catch { return (-1, "", "\(error)") }
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
    }

    /// Payloads as warcio reads them: one JSON line per response/resource record with its target,
    /// date, status and the SHA-1 of `content_stream()` (chunking and gzip removed).
    static let payloadScript = """
        import sys, json, hashlib
        from warcio.archiveiterator import ArchiveIterator
        with open(sys.argv[1], 'rb') as f:
            for r in ArchiveIterator(f):
                if r.rec_type not in ('response', 'resource'):
                    continue
                status = int(r.http_headers.get_statuscode()) if r.http_headers else 200
                body = r.content_stream().read()
                print(json.dumps({'uri': r.rec_headers.get_header('WARC-Target-URI'), 'date': r.rec_headers.get_header('WARC-Date'),
                                  'status': status, 'sha1': hashlib.sha1(body).hexdigest(), 'type': r.rec_type}))
        """

    @Test("exported WARCs pass warcio check and index every record")
    func checkAndIndex() throws {
        guard let bin = Self.bin else { return }
        let folder = try TemporaryFolder()
        var inputs = [try RoundTripTests.mixedWARC(in: folder)]
        for name in ["pywb-iana.warc.gz", "pywb-dupes.warc.gz", "pywb-example-wget-1-14.warc.gz", "harviewer-www-cnn-com-fiddler.har"] {
            if let path = Corpus.path(name) { inputs.append(path) }
        }
        let (_, archive) = try importFiles(inputs, in: folder, options: ImportOptions(keep: .all))
        let warc = folder.file("out.warc.gz")
        let summary = try ArchiveExporter().run(archive: archive, format: .warc, output: warc)
        #expect(summary.revisits > 0)
        let check = Self.run(bin + "/warcio", ["check", "-v", warc])
        #expect(check.status == 0, "warcio check: \(check.output.suffix(2000)) \(check.error.suffix(2000))")
        #expect(!check.output.contains("fail"))
        let index = Self.run(bin + "/warcio", ["index", "-f", "warc-type,warc-target-uri,offset", warc])
        #expect(index.status == 0, "\(index.error.suffix(2000))")
        let lines = index.output.split(separator: "\n")
        let warcinfo = 1 + (try ArchiveReader(path: archive).metadata.entries.filter { $0.key == "warcinfo" }.count)
        #expect(lines.count == warcinfo + summary.responses + summary.redirects + summary.revisits + summary.requests)
        #expect(lines.filter { $0.contains("\"revisit\"") }.count == summary.revisits)
    }

    @Test("every payload webarc imports from the corpus equals warcio's", arguments: [
        "pywb-iana.warc.gz", "pywb-dupes.warc.gz", "pywb-example-wget-1-14.warc.gz", "pywb-example-wpull.warc.gz",
        "pywb-post-test.warc.gz", "warcio-example-iana.org-chunked.warc", "warcio-example-space-in-target-uri.warc.gz",
    ])
    func payloadsAgree(_ name: String) throws {
        guard let bin = Self.bin, let path = Corpus.path(name) else { return }
        let folder = try TemporaryFolder()
        let script = try folder.write("payloads.py", Array(Self.payloadScript.utf8))
        let result = Self.run(bin + "/python", [script, path])
        #expect(result.status == 0, "\(result.error.suffix(1000))")
        let (_, archive) = try importFiles([path], in: folder, options: ImportOptions(keep: .all))
        let dump = try ArchiveDump(archive)
        var compared = 0
        for line in result.output.split(separator: "\n") {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let uri = record["uri"] as! String
            let date = ISODate.parse(record["date"] as! String)
            let key = try URLKey.key(method: "GET", url: uri)
            let candidates = dump.items.filter { ($0.key == key || $0.key.hasSuffix(" " + (try! URLKey.canonicalize(uri)))) && $0.captureDate == date }
            let item = try #require(candidates.first, "\(uri) at \(date as Any) is in the archive")
            #expect(item.status == record["status"] as? Int, "\(uri)")
            if item.kind == "response" {
                let sha1 = Insecure.SHA1.hash(data: item.body ?? []).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
                #expect(sha1 == record["sha1"] as? String, "\(uri): payload differs from warcio's")
            }
            compared += 1
        }
        #expect(compared > 0)
    }
}
