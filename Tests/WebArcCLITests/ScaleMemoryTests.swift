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
        "pack writes a 200 000-record archive under a memory limit; it verifies and unpacks under one",
        .enabled(if: FileManager.default.isExecutableFile(atPath: prlimit), "needs prlimit (util-linux)"))
    func packUnderMemoryLimit() async throws {
        let folder = try TemporaryFolder()
        let site = folder.file("site")
        try await onOwnThread { try Self.makeSite(at: site) }
        let archive = folder.file("site.webarc")
        let pack = try await CLIRunner.runDetached(
            ["--as=\(Self.limitMiB << 20)", "--", CLIRunner.binary, "pack", site, "-o", archive, "--quiet"],
            timeout: 600, executable: Self.prlimit)
        #expect(pack.status == 0, "\(pack.stderr)")
        #expect(try ArchiveReader(path: archive).recordCount == Self.pages)
        // The read side streams the trees: verify and unpack of the same archive under a tighter limit.
        let verify = try await CLIRunner.runDetached(
            ["--as=\(Self.readLimitMiB << 20)", "--", CLIRunner.binary, "verify", archive, "--quiet"],
            timeout: 600, executable: Self.prlimit)
        #expect(verify.status == 0, "\(verify.stderr)")
        let output = folder.file("unpacked")
        let unpack = try await CLIRunner.runDetached(
            ["--as=\(Self.readLimitMiB << 20)", "--", CLIRunner.binary, "unpack", archive, "-o", output, "--quiet"],
            timeout: 600, executable: Self.prlimit)
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
    }
}
