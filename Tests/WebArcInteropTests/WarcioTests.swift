import Crypto
import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcInterop

/// warcio in a virtual environment: installed from PyPI into a temporary folder on first use and
/// kept as `$TMPDIR/webarc-warcio-venv` for the next run.
enum Warcio {
    /// The virtual environment's `bin` folder; nil when warcio could not be installed.
    static var bin: String? { venv.bin }

    /// Why the warcio tests are skipped when ``bin`` is nil.
    static var skipReason: Comment { Comment(rawValue: venv.problem ?? "") }

    /// The virtual environment, made once per test run.
    static let venv: (bin: String?, problem: String?) = {
        let folder = NSTemporaryDirectory() + "webarc-warcio-venv"
        if runBlocking(folder + "/bin/python", ["-c", "import warcio"]).status == 0 { return (folder + "/bin", nil) }
        try? FileManager.default.removeItem(atPath: folder)
        guard runBlocking("/usr/bin/env", ["python3", "-m", "venv", folder]).status == 0 else {
            return (nil, "python3 -m venv failed; install python3-venv to run the warcio checks")
        }
        let install = runBlocking(folder + "/bin/pip", ["install", "--quiet", "warcio"])
        guard install.status == 0 else {
            return (nil, "pip install warcio failed (\(install.error.prefix(200))); the warcio checks need PyPI")
        }
        return (folder + "/bin", nil)
    }()

    /// Runs a program and returns its exit status, stdout and stderr, on a thread of its own.
    static func run(_ executable: String, _ arguments: [String]) async -> (status: Int32, output: String, error: String)
    {
        (try? await onOwnThread { runBlocking(executable, arguments) }) ?? (-1, "", "could not start a thread")
    }

    /// ``run(_:_:)`` on the calling thread: for the set-up a test trait evaluates.
    static func runBlocking(
        _ executable: String, _ arguments: [String]
    ) -> (status: Int32, output: String, error: String) {
        do {
            let run = try runProgram(executable, arguments)
            return (run.status, run.text, run.stderr)
        } catch {
            return (-1, "", "\(error)")
        }
    }
}

/// Checks against warcio, the tool web archivists already trust: exported WARCs pass
/// `warcio check` and index with `warcio index`, and every payload webarc imports equals the one
/// warcio reads. Skipped, with the reason, when warcio cannot be installed (no network, no
/// `python3 -m venv`).
// `.enabled(if:)` rather than an early return, so a machine without warcio shows these tests as
// skipped (with the reason), never as passed.
@Suite("warcio agrees", .serialized, .enabled(if: Warcio.bin != nil, Warcio.skipReason))
struct WarcioTests {
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

    @Test("an exported WARC of the mixed fixture passes warcio check and indexes every record")
    func checkAndIndexMixed() async throws {
        let folder = try TemporaryFolder()
        try await Self.checkAndIndex([try RoundTripTests.mixedWARC(in: folder)], in: folder)
    }

    @Test(
        "an exported WARC of corpus captures passes warcio check and indexes every record",
        .enabled(if: Corpus.available, Corpus.skipReason))
    func checkAndIndexCorpus() async throws {
        let folder = try TemporaryFolder()
        let names = [
            "pywb-iana.warc.gz", "pywb-dupes.warc.gz", "pywb-example-wget-1-14.warc.gz",
            "harviewer-www-cnn-com-fiddler.har",
        ]
        try await Self.checkAndIndex(
            try [try RoundTripTests.mixedWARC(in: folder)] + names.map(Corpus.path), in: folder)
    }

    /// Imports `inputs`, exports them as WARC, and runs `warcio check` and `warcio index` on the result.
    static func checkAndIndex(_ inputs: [String], in folder: TemporaryFolder) async throws {
        let bin = try #require(Warcio.bin)
        let (_, archive) = try importFiles(inputs, in: folder, options: ImportOptions(keep: .all))
        let warc = folder.file("out.warc.gz")
        let summary = try ArchiveExporter().run(archive: archive, format: .warc, output: warc)
        #expect(summary.revisits > 0)
        let check = await Warcio.run(bin + "/warcio", ["check", "-v", warc])
        #expect(check.status == 0, "warcio check: \(check.output.suffix(2000)) \(check.error.suffix(2000))")
        #expect(!check.output.contains("fail"))
        let index = await Warcio.run(bin + "/warcio", ["index", "-f", "warc-type,warc-target-uri,offset", warc])
        #expect(index.status == 0, "\(index.error.suffix(2000))")
        let lines = index.output.split(separator: "\n")
        let warcinfo = 1 + (try ArchiveReader(path: archive).metadata.entries.filter { $0.key == "warcinfo" }.count)
        #expect(lines.count == warcinfo + summary.responses + summary.redirects + summary.revisits + summary.requests)
        #expect(lines.filter { $0.contains("\"revisit\"") }.count == summary.revisits)
    }

    @Test(
        "every payload webarc imports from the corpus equals warcio's",
        .enabled(if: Corpus.available, Corpus.skipReason),
        arguments: RoundTripTests.corpusWARCs)
    func payloadsAgree(_ name: String) async throws {
        let bin = try #require(Warcio.bin)
        let path = try Corpus.path(name)
        let folder = try TemporaryFolder()
        let script = try folder.write("payloads.py", Array(Self.payloadScript.utf8))
        let result = await Warcio.run(bin + "/python", [script, path])
        #expect(result.status == 0, "\(result.error.suffix(1000))")
        let (_, archive) = try importFiles([path], in: folder, options: ImportOptions(keep: .all))
        let dump = try ArchiveDump(archive)
        var compared = 0
        for line in result.output.split(separator: "\n") {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let uri = record["uri"] as! String
            let date = ISODate.parse(record["date"] as! String)
            let key = try URLKey.key(method: "GET", url: uri)
            let candidates = dump.items.filter {
                ($0.key == key || $0.key.hasSuffix(" " + (try! URLKey.canonicalize(uri)))) && $0.captureDate == date
            }
            let item = try #require(candidates.first, "\(uri) at \(date as Any) is in the archive")
            #expect(item.status == record["status"] as? Int, "\(uri)")
            if item.kind == "response" {
                let sha1 = Insecure.SHA1.hash(data: item.body ?? []).map {
                    ($0 < 16 ? "0" : "") + String($0, radix: 16)
                }.joined()
                #expect(sha1 == record["sha1"] as? String, "\(uri): payload differs from warcio's")
            }
            compared += 1
        }
        #expect(compared > 0)
    }
}
