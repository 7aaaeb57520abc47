import Foundation
import Testing
import WebArc
import WebArcTestSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What `webarc serve` says when it cannot start: a port in use or not permitted, a host that is
/// not this machine's, archives in the wrong order, an archive that fails `--verify`. Each is one
/// sentence with the fix, and a documented exit code; nothing listens.
@Suite("webarc serve at start", .serialized)
struct ServeStartupTests {
    /// A packed site with a page and a 300 KB body of noise (stored raw: a flipped byte changes
    /// content, not decoding), an update of it (`update.webarc`, over `old.webarc`), and a copy of
    /// the site with one byte of the noise body flipped (`damaged.webarc`).
    struct Site {
        let scratch: TemporaryFolder
        var old: String { scratch.file("old.webarc") }
        var new: String { scratch.file("new.webarc") }
        var update: String { scratch.file("update.webarc") }
        var damaged: String { scratch.file("damaged.webarc") }
        static let noiseURL = "http://localhost/noise.bin"

        init() async throws {
            scratch = try TemporaryFolder()
            var generator = SeededGenerator(seed: 7)
            let noise = (0..<300_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
            for (name, title) in [("old", "one"), ("new", "two")] {
                try scratch.write(name + "/index.html", "<h1>\(title)</h1>")
                try Data(noise).write(to: URL(fileURLWithPath: scratch.file(name + "/noise.bin")))
                let pack = try await CLIRunner.runDetached([
                    "pack", scratch.file(name), "-o", scratch.file(name + ".webarc"), "-q",
                ])
                #expect(pack.status == 0, "\(pack.stderr)")
            }
            let diff = try await CLIRunner.runDetached(["diff", old, new, "-o", update, "-q"])
            #expect(diff.status == 0, "\(diff.stderr)")
            let reader = try ArchiveReader(path: new)
            guard case .response(let response)? = try reader.lookup(url: Self.noiseURL)?.record else {
                throw await CLIFailure("no \(Self.noiseURL) in \(new)")
            }
            let offset = Int(try reader.bodyEntry(response.body).chunks[0].offset)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: new))
            bytes[offset + 1000] ^= 0x5A
            try bytes.write(to: URL(fileURLWithPath: damaged))
        }
    }

    /// The status of a GET of `path` from `server`.
    static func status(_ server: ServeProcess, _ path: String) async throws -> Int {
        let (_, response) = try await URLSession.shared.data(from: URL(string: server.url + path)!)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }

    // MARK: Listening

    @Test("a port in use: exit 69 and a sentence naming --port 0")
    func portInUse() async throws {
        let site = try await Site()
        let other = try TestHTTPServer { _ in .init(text: "taken") }
        defer { other.stop() }
        let run = try await CLIRunner.runDetached(["serve", site.new, "--port", String(other.port)], timeout: 30)
        #expect(run.status == 69)
        #expect(run.text.isEmpty, "no URL: the server never listened")
        #expect(
            run.stderr == "webarc: error: cannot listen on 127.0.0.1:\(other.port): the port is in use "
                + "(try --port 0 for any free port, or another --port)\n")
    }

    @Test("a host that is not this machine's, or no host at all: exit 69 naming --host")
    func badHost() async throws {
        let site = try await Site()
        let foreign = try await CLIRunner.runDetached(
            ["serve", site.new, "--host", "192.0.2.1", "--port", "0"], timeout: 30)
        #expect(foreign.status == 69)
        #expect(
            foreign.stderr == "webarc: error: cannot listen on 192.0.2.1:0: the address is not one of this machine's "
                + "(try --host 127.0.0.1 for this machine only, or 0.0.0.0 for every interface)\n")
        // .invalid never resolves (RFC 6761).
        let unknown = try await CLIRunner.runDetached(
            ["serve", site.new, "--host", "nosuch.invalid", "--port", "0"], timeout: 60)
        #expect(unknown.status == 69)
        #expect(unknown.stderr.hasPrefix("webarc: error: cannot listen on nosuch.invalid: no such host ("))
        #expect(
            unknown.stderr.hasSuffix("(try --host 127.0.0.1 for this machine only, or 0.0.0.0 for every interface)\n"))
    }

    /// Whether a program without privileges can be run here and port 1 needs them.
    static let canTryPrivilegedPort: Bool = {
        let start =
            (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_unprivileged_port_start", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 1024
        return start > 1 && (getuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"))
    }()

    @Test(
        "a port below 1024 without privileges: exit 69 and why",
        .enabled(if: canTryPrivilegedPort, "no unprivileged run possible"))
    func privilegedPort() async throws {
        let site = try await Site()
        // As root, the server is run as nobody with no capabilities.
        let run =
            getuid() != 0
            ? try await CLIRunner.runDetached(["serve", site.new, "--port", "1"], timeout: 30)
            : try await CLIRunner.runDetached(
                [
                    "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", CLIRunner.binary, "serve",
                    site.new, "--port", "1",
                ],
                timeout: 30, executable: "/usr/bin/setpriv")
        #expect(run.status == 69)
        #expect(
            run.stderr
                == "webarc: error: cannot listen on 127.0.0.1:1: permission denied: ports below 1024 need root or "
                + "CAP_NET_BIND_SERVICE (try --port 0 for any free port, or one of 1024 or above)\n")
    }

    // MARK: Layer order

    @Test("an update listed after its base: exit 65 and the command in the right order (serve, ls, verify)")
    func updateAfterItsBase() async throws {
        let site = try await Site()
        let problem =
            "webarc: error: \(site.update) is an update over 1 archive but none is listed after it: list the update before its base: "
        let serve = try await CLIRunner.runDetached(["serve", site.old, site.update, "--port", "0"], timeout: 30)
        #expect(serve.status == 65)
        #expect(serve.stderr == problem + "webarc serve \(site.update) \(site.old)\n")
        let list = try await CLIRunner.runDetached(["ls", site.old, site.update])
        #expect(list.status == 65)
        #expect(list.stderr == problem + "webarc ls \(site.update) \(site.old)\n")
        let verify = try await CLIRunner.runDetached(["verify", site.old, "--base", site.update])
        #expect(verify.status == 65)
        #expect(verify.stderr == problem + "webarc verify \(site.update) --base \(site.old)\n")
        // The order named works.
        #expect(try await CLIRunner.runDetached(["ls", site.update, site.old]).status == 0)
        #expect(try await CLIRunner.runDetached(["verify", site.update, "--base", site.old, "-q"]).status == 0)
    }

    @Test("an update served without its base: exit 65 naming the base it goes over")
    func updateWithoutItsBase() async throws {
        let site = try await Site()
        let run = try await CLIRunner.runDetached(["serve", site.update, "--port", "0"], timeout: 30)
        #expect(run.status == 65)
        // No order of the archives given fits: the base's file name hint is named.
        #expect(
            run.stderr == "webarc: error: \(site.update) is an update over 1 archive but none is listed after it: "
                + "name its base after it: webarc serve \(site.update) old.webarc\n")
    }

    // MARK: --verify

    @Test("--trust starts on a tampered archive and answers 500 for the damaged page; --verify refuses it, exit 65")
    func verifyRefusesATamperedArchive() async throws {
        let site = try await Site()
        #expect(try await CLIRunner.runDetached(["keygen", "-o", site.scratch.file("pub")]).status == 0)
        let sign = try await CLIRunner.runDetached(["sign", site.damaged, "--key", site.scratch.file("pub.key")])
        #expect(sign.status == 0, "\(sign.stderr)")
        let trust = ["--trust", site.scratch.file("pub.pub")]

        // The signature covers the archive's digest, which a flipped body byte does not change.
        let serving = try ServeProcess(
            binary: CLIRunner.binary, arguments: [site.damaged, "--port", "0", "--quiet"] + trust)
        #expect(serving.url.hasPrefix("http://127.0.0.1:"))
        #expect(try await Self.status(serving, "noise.bin") == 500)
        #expect(try await Self.status(serving, "") == 200)
        #expect(serving.stop(with: SIGTERM).status == 0)

        let refused = try await CLIRunner.runDetached(
            ["serve", site.damaged, "--port", "0", "--verify"] + trust, timeout: 60)
        #expect(refused.status == 65)
        #expect(refused.text.isEmpty, "no URL: the server never listened")
        let lines = refused.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("webarc: \(site.damaged): error [chunks] record ") == true, "\(lines)")
        #expect(lines.first?.contains("\(Site.noiseURL): body ") == true)
        #expect(lines.last == "webarc: error: \(site.damaged) failed --verify (the problems are listed above)")
    }

    @Test("--verify checks an update and its base as stacked, then serves")
    func verifyPassesAndServes() async throws {
        let site = try await Site()
        let serving = try ServeProcess(
            binary: CLIRunner.binary, arguments: [site.update, site.old, "--port", "0", "--quiet", "--verify"])
        #expect(serving.url.hasPrefix("http://127.0.0.1:"))
        #expect(try await Self.status(serving, "noise.bin") == 200)
        let (status, stderr) = serving.stop(with: SIGTERM)
        #expect(status == 0)
        #expect(stderr.isEmpty)
    }

    @Test("serve --help documents --verify, what --trust checks, and its exit codes")
    func help() async throws {
        let help = try await CLIRunner.runDetached(["serve", "--help"]).text.replacingOccurrences(of: "\n", with: " ")
            .split(separator: " ").joined(separator: " ")
        #expect(help.contains("--trust checks the signature only"))
        #expect(help.contains("a damaged page answers 500"))
        #expect(help.contains("--verify checks every archive in full before listening"))
        #expect(help.contains("0 when stopped by SIGINT or SIGTERM"))
        #expect(help.contains("69 cannot listen"))
    }
}

/// A test's own failure with a message.
private struct CLIFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) async { self.description = description }
}
