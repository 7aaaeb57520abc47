import Foundation
import Testing
import WebArc
import WebArcTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The real `webarc pack` of a site of 200 000 pages under an address-space limit: a writer whose
/// memory grew with the records (about 2.8 KB a file before the records were sorted in spilled
/// runs) cannot finish under it.
@Suite("Scale: 200 000 records in bounded memory")
struct ScaleMemoryTests {
    static let prlimit = "/usr/bin/prlimit"
    /// Pages: 200 folders of 1 000.
    static let pages = 200_000
    /// The address space `pack` may use (`prlimit --as`): a debug build packs these pages in
    /// 600 MiB; the writer that held every record and body entry needed over 650 MiB even built
    /// for release (Tools/bench/NOTES.md, 'Scale').
    static let limitMiB = 640
    /// The address space `verify` and `unpack` may use (`prlimit --as`): a debug build's verify
    /// aborted under it when it kept an index of every body and a list of every chunk extent
    /// (Tools/bench/NOTES.md, 'Scale').
    static let readLimitMiB = 400

    /// Runs `webarc` with `arguments` under an address-space limit of `mebibytes`.
    ///
    /// A portable process (`WEBARC_PORTABLE=1`) leaves glibc's allocator as it is, and glibc then
    /// reserves 64 MiB of address space for each thread's arena, memory never used: apply's
    /// threads ran out of the limit that way. For it, glibc's own `MALLOC_ARENA_MAX` caps the
    /// arenas at 2, as the commands' `MallocTuning.useOneArena()` caps them at 1 otherwise.
    static func run(
        underMiB mebibytes: Int, _ arguments: [String], timeout: TimeInterval
    ) async throws -> CLIRunner.Result {
        var environment = ProcessInfo.processInfo.environment
        if environment["WEBARC_PORTABLE"] == "1" { environment["MALLOC_ARENA_MAX"] = "2" }
        return try await CLIRunner.runDetached(
            ["--as=\(mebibytes << 20)", "--", CLIRunner.binary] + arguments, timeout: timeout, executable: prlimit,
            environment: environment)
    }

    /// The bytes of page `number`.
    static func page(_ number: Int) -> [UInt8] {
        Array("<!DOCTYPE html><title>Page \(number)</title><p>page \(number)</p>\n".utf8)
    }

    /// Writes the site: small distinct pages, so that every body is stored and indexed.
    static func makeSite(at root: String) throws {
        for folder in 0..<pages / 1000 {
            let path = root + "/" + String(format: "f%03d", folder)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            for page in 0..<1000 {
                let number = folder * 1000 + page
                let bytes = Self.page(number)
                let descriptor = open(path + "/page-\(number).html", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                guard descriptor >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
                defer { close(descriptor) }
                guard bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) == bytes.count else {
                    throw POSIXError(.EIO)
                }
            }
        }
    }

    @Test(
        "pack writes a 200 000-record archive under a memory limit; verify, unpack, diff and apply run under one",
        .enabled(if: FileManager.default.isExecutableFile(atPath: prlimit), "needs prlimit (util-linux)"))
    func packUnderMemoryLimit() async throws {
        let folder = try TemporaryFolder()
        let site = folder.file("site")
        try await onOwnThread { try Self.makeSite(at: site) }
        let archive = folder.file("site.webarc")
        let pack = try await Self.run(underMiB: Self.limitMiB, ["pack", site, "-o", archive, "--quiet"], timeout: 600)
        #expect(pack.status == 0, "\(pack.stderr)")
        #expect(try ArchiveReader(path: archive).recordCount == Self.pages)
        // The read side streams the trees: verify and unpack of the same archive under a tighter limit.
        let verify = try await Self.run(underMiB: Self.readLimitMiB, ["verify", archive, "--quiet"], timeout: 600)
        #expect(verify.status == 0, "\(verify.stderr)")
        let output = folder.file("unpacked")
        let unpack = try await Self.run(
            underMiB: Self.readLimitMiB, ["unpack", archive, "-o", output, "--quiet"], timeout: 600)
        #expect(unpack.status == 0, "\(unpack.stderr)")
        let written = try await onOwnThread {
            let folders = try FileManager.default.contentsOfDirectory(atPath: output).filter { $0.hasPrefix("f") }
            return try folders.reduce(0) {
                $0 + (try FileManager.default.contentsOfDirectory(atPath: output + "/" + $1).count)
            }
        }
        #expect(written == Self.pages)
        for number in [0, 999, 1_000, 123_457, Self.pages - 1] {
            let path = output + "/" + String(format: "f%03d", number / 1000) + "/page-\(number).html"
            #expect(FileManager.default.contents(atPath: path) == Data(Self.page(number)), "\(path)")
        }
        // Every page was indexed on the way (the writer streamed them from its sorted runs).
        let search = try await CLIRunner.runDetached(["search", archive, "123457", "--json"])
        #expect(search.status == 0, "\(search.stderr)")
        #expect(search.text.contains("page-123457.html"), "\(search.text)")
        try await diffAndApplyUnderMemoryLimit(site: site, old: archive, in: folder)
    }

    /// The next release of the site (1 % of pages edited, some added and removed), packed, then
    /// `diff --compact` against the first and `apply` of that update, each under a limit: apply
    /// must give the new release's archive byte for byte. The diff runs with `--no-check`: its
    /// check is that apply, run here on its own.
    private func diffAndApplyUnderMemoryLimit(site: String, old: String, in folder: TemporaryFolder) async throws {
        try await onOwnThread { try Self.editSite(at: site) }
        let new = folder.file("site-2.webarc")
        let pack = try await Self.run(underMiB: Self.limitMiB, ["pack", site, "-o", new, "--quiet"], timeout: 600)
        #expect(pack.status == 0, "\(pack.stderr)")
        let update = folder.file("site-1-to-2.webarcu")
        let diff = try await Self.run(
            underMiB: Self.limitMiB, ["diff", old, new, "--compact", "--no-check", "-o", update, "--json"],
            timeout: 900)
        #expect(diff.status == 0, "\(diff.stderr)")
        let counts = (try? JSONSerialization.jsonObject(with: Data(diff.text.utf8))) as? [String: Any]
        #expect(counts?["changedURLs"] as? Int == Self.pages / 100, "\(diff.text)")
        #expect(counts?["addedURLs"] as? Int == 10 && counts?["deletedURLs"] as? Int == 10, "\(diff.text)")
        // Apply spills the target's records to a scratch log, keeps to one malloc arena and reads
        // each body's entry from its record's leaf: a debug build's stays under 130 MiB resident.
        let applied = folder.file("site-2-applied.webarc")
        let apply = try await Self.run(
            underMiB: Self.readLimitMiB, ["apply", old, update, "-o", applied, "--quiet"], timeout: 900)
        #expect(apply.status == 0, "\(apply.stderr)")
        let same = try await onOwnThread {
            FileManager.default.contentsEqual(atPath: new, andPath: applied)
        }
        #expect(same, "apply of the compact update did not give the new release's archive")
    }

    /// Edits every hundredth page, removes the ten pages of `f199` ending in 0 and adds ten new ones.
    static func editSite(at root: String) throws {
        for number in stride(from: 7, to: pages, by: 100) {
            let path = root + "/" + String(format: "f%03d", number / 1000) + "/page-\(number).html"
            try Data(page(number) + Array("<p>edited in release 2</p>\n".utf8)).write(to: URL(fileURLWithPath: path))
        }
        for number in stride(from: pages - 100, to: pages, by: 10) {
            try FileManager.default.removeItem(atPath: root + "/f199/page-\(number).html")
        }
        for number in pages..<pages + 10 {
            try Data(page(number)).write(to: URL(fileURLWithPath: root + "/f199/page-\(number).html"))
        }
    }
}
