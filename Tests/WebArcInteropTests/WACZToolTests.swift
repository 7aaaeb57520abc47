import Crypto
import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcInterop

/// py-wacz (`wacz`, Webrecorder's reference implementation) and pywb in a virtual environment,
/// installed from PyPI on first use and kept as `$TMPDIR/webarc-wacz-venv` for the next run.
enum WACZTools {
    /// The virtual environment's `bin` folder; nil when `wacz` could not be installed.
    static var bin: String? { venv.bin }
    /// Whether pywb installed too (its replay test is skipped otherwise).
    static var hasPywb: Bool {
        venv.bin.map { FileManager.default.isExecutableFile(atPath: $0 + "/wb-manager") } ?? false
    }

    static var skipReason: Comment { Comment(rawValue: venv.problem ?? "") }

    static let venv: (bin: String?, problem: String?) = {
        let folder = NSTemporaryDirectory() + "webarc-wacz-venv"
        if Warcio.runBlocking(folder + "/bin/python", ["-c", "import wacz"]).status == 0 {
            if !FileManager.default.fileExists(atPath: folder + "/bin/wb-manager") {
                _ = Warcio.runBlocking(folder + "/bin/pip", ["install", "--quiet", "pywb"])
            }
            return (folder + "/bin", nil)
        }
        try? FileManager.default.removeItem(atPath: folder)
        guard Warcio.runBlocking("/usr/bin/env", ["python3", "-m", "venv", folder]).status == 0 else {
            return (nil, "python3 -m venv failed; install python3-venv to run the py-wacz checks")
        }
        let install = Warcio.runBlocking(folder + "/bin/pip", ["install", "--quiet", "wacz"])
        guard install.status == 0 else {
            return (nil, "pip install wacz failed (\(install.error.prefix(200))); the py-wacz checks need PyPI")
        }
        // pywb is optional: its replay test says so when it is absent.
        _ = Warcio.runBlocking(folder + "/bin/pip", ["install", "--quiet", "pywb"])
        return (folder + "/bin", nil)
    }()

    /// Runs `executable` in `folder`; stdout and stderr come back together, as written.
    static func run(
        _ executable: String, _ arguments: [String], in folder: String
    ) async -> (status: Int32, output: String) {
        do {
            let run = try await onOwnThread { try runProgram(executable, arguments, in: folder, mergingErrors: true) }
            return (run.status, run.text)
        } catch {
            return (-1, "\(error)")
        }
    }
}

/// WACZ against the tools that define it: WACZs made by `wacz create` import with every URL,
/// status and body; webarc's WACZ passes `wacz validate`; pywb replays its WARC byte for byte.
@Suite("py-wacz and pywb agree", .serialized, .enabled(if: WACZTools.bin != nil, WACZTools.skipReason))
struct WACZToolTests {
    @Test("a WACZ made by wacz create imports as its WARC does", arguments: [false, true])
    func waczCreate(_ detectPages: Bool) async throws {
        let folder = try TemporaryFolder()
        let warc = try WACZExporterTests.warc(in: folder)
        let bin = try #require(WACZTools.bin)
        let made = await WACZTools.run(
            bin + "/wacz", ["create", "-o", "made.wacz", warc] + (detectPages ? ["--detect-pages"] : []),
            in: folder.path)
        #expect(made.status == 0, "\(made.output)")
        let (summary, fromWACZ) = try importFiles(
            [folder.file("made.wacz")], in: folder, name: "1.webarc", options: ImportOptions(keep: .all))
        let fromWARC = try importFiles([warc], in: folder, name: "2.webarc", options: ImportOptions(keep: .all)).path
        #expect(summary.inputs.first?.format == .wacz)
        let a = try ArchiveDump(fromWACZ), b = try ArchiveDump(fromWARC)
        #expect(a.items.count == b.items.count && a.items.count > 5)
        for (x, y) in zip(a.items, b.items) { #expect(x == y, "\(x.key)") }
        if detectPages { #expect(summary.startURL != nil) }
    }

    @Test("webarc's WACZ passes wacz validate", arguments: [false, true])
    func validate(_ forceZIP64: Bool) async throws {
        let folder = try TemporaryFolder()
        let wacz = try WACZExporterTests.export(
            try WACZExporterTests.archive(in: folder), in: folder, forceZIP64: forceZIP64)
        let result = await WACZTools.run(
            try #require(WACZTools.bin) + "/wacz", ["validate", "-f", wacz], in: folder.path)
        #expect(result.status == 0 && result.output.contains("Validation succeeded"), "\(result.output)")
    }

    @Test(
        "pywb replays the WARC of webarc's WACZ: every response's status and body",
        .enabled(if: WACZTools.hasPywb, "pywb did not install from PyPI"))
    func pywbReplay() async throws {
        let folder = try TemporaryFolder()
        let archive = try WACZExporterTests.archive(in: folder)
        let wacz = try WACZExporterTests.export(archive, in: folder)
        let zip = try ZIPReader(file: try InputFile(path: wacz))
        let warc = try folder.write(
            "data.warc.gz", try zip.contents(of: try #require(zip.entry("archive/data.warc.gz")), limit: 1 << 26))
        let bin = try #require(WACZTools.bin)
        #expect(await WACZTools.run(bin + "/wb-manager", ["init", "c"], in: folder.path).status == 0)
        let added = await WACZTools.run(bin + "/wb-manager", ["add", "c", warc], in: folder.path)
        #expect(added.status == 0, "\(added.output)")
        let reader = try ArchiveReader(path: archive)
        var expected: [String] = []
        var urls: [String] = []
        try reader.forEachEntry { entry in
            // A body still in a content coding is decoded by pywb even for id_ (the fixture's br body is not real brotli).
            guard case .response(let response) = entry.record, response.request.method == "GET",
                WARCExporter.isHTTP(response.request.url),
                response.headers.value(for: "Content-Encoding") == nil
            else { return }
            let body = try reader.body(response.body)
            expected.append(
                "RESULT \(response.status) \(Insecure.MD5.hash(data: body).map { String(format: "%02x", $0) }.joined()) \(response.request.url)"
            )
            urls.append(response.request.url)
        }
        let script = """
            import sys, io, hashlib, faulthandler, signal
            # The test runner's threads block most signals, and a child inherits that mask: gevent's
            # hub then waits forever. Unblock them, and let a hang fail with a traceback.
            signal.pthread_sigmask(signal.SIG_SETMASK, [])
            faulthandler.dump_traceback_later(120, exit=True)
            from pywb.apps.frontendapp import FrontEndApp
            app = FrontEndApp()
            for url in sys.argv[1:]:
                env = {"REQUEST_METHOD": "GET", "PATH_INFO": "/c/2100id_/" + url, "QUERY_STRING": "", "SERVER_NAME": "127.0.0.1",
                       "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1", "HTTP_HOST": "127.0.0.1", "SCRIPT_NAME": "",
                       "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(), "wsgi.errors": sys.stderr}
                status = []
                body = b"".join(app(env, lambda s, h, e=None: status.append(s)))
                print("RESULT", status[0].split()[0], hashlib.md5(body).hexdigest(), url, flush=True)
            """
        let result = await WACZTools.run(bin + "/python", ["-c", script] + urls, in: folder.path)
        let lines = result.output.split(separator: "\n").filter { $0.hasPrefix("RESULT ") }.map(String.init)
        #expect(lines == expected, "\(result.output.suffix(2000))")
    }
}
