import Foundation
import Testing
import WebArcTestSupport

/// An update made where the system's liblz4 and libzstd are one version applies where they are
/// another: the same `webarc` binary run with `LD_LIBRARY_PATH` pointing at a liblz4 1.9.3 and a
/// libzstd 1.5.7 (Tools/other-compressors.sh builds them; Debian 12's are 1.9.4 and 1.5.4). Apply
/// writes the publisher's archive again byte for byte, so it must code what changed exactly as the
/// publisher did, whatever the machine's libraries. A `webarc` that linked the system's libraries
/// (debug builds did, dynamically) loads these and fails: libzstd 1.5.7 codes the `--zstd` pages
/// otherwise, and apply refuses the result (`bad-target`). Its compressors are the package's own
/// (Sources/CLZ4, Sources/CZstd), so it does not.
@Suite("apply across compressor library versions", .serialized)
struct CrossLibraryApplyTests {
    /// Where Tools/other-compressors.sh leaves the libraries (`WEBARC_OTHER_COMPRESSORS` overrides it).
    static let otherLibraries: String =
        (ProcessInfo.processInfo.environment["WEBARC_OTHER_COMPRESSORS"] ?? "/var/tmp/webarc-other-compressors")
        + "/lib"

    /// Python documentation pages (Debian's python3.11-doc), which Zstandard 1.5.4 and 1.5.7 code
    /// differently against a dictionary at level 9.
    static let pythonDocs = "/usr/share/doc/python3.11/html/library"

    static let ready: Bool = {
        let manager = FileManager.default
        return manager.fileExists(atPath: otherLibraries + "/liblz4.so.1")
            && manager.fileExists(atPath: otherLibraries + "/libzstd.so.1")
            && manager.fileExists(atPath: otherLibraries + "/VERSIONS")
            && manager.fileExists(atPath: pythonDocs + "/functions.html")
    }()

    /// Two releases of 60 Python documentation pages: the second adds a line to every page.
    static func releases(in scratch: TemporaryFolder) throws {
        let manager = FileManager.default
        let pages = try manager.contentsOfDirectory(atPath: pythonDocs).filter { $0.hasSuffix(".html") }
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }.prefix(60)
        for release in ["1", "2"] {
            try manager.createDirectory(atPath: scratch.file("v\(release)"), withIntermediateDirectories: true)
            for page in pages {
                var bytes = try Data(
                    contentsOf: URL(fileURLWithPath: pythonDocs + "/" + page).resolvingSymlinksInPath())
                if release == "2" { bytes.append(contentsOf: Array("<p>Release 2</p>\n".utf8)) }
                let path = scratch.file("v\(release)/\(page)")
                try bytes.write(to: URL(fileURLWithPath: path))
                try manager.setAttributes(
                    [.modificationDate: Date(timeIntervalSince1970: 1_790_000_000)], ofItemAtPath: path)
            }
        }
    }

    @Test(
        "webarc links no liblz4 or libzstd of the system: its compressors are the package's own",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/ldd"), "ldd not installed"))
    func noSystemCompressors() async throws {
        let ldd = try await CLIRunner.runDetached([CLIRunner.binary], executable: "/usr/bin/ldd")
        try #require(ldd.status == 0, "\(ldd.stderr)")
        #expect(!ldd.text.contains("liblz4"), "\(ldd.text)")
        #expect(!ldd.text.contains("libzstd"), "\(ldd.text)")
    }

    @Test(
        "pack and diff with the system's liblz4 and libzstd, apply with other versions: the publisher's archive",
        .enabled(
            if: ready,
            "needs Tools/other-compressors.sh's libraries in /var/tmp/webarc-other-compressors/lib and python3.11-doc"),
        arguments: ["--zstd=9", "--level=1"])
    func applyWithOtherLibraries(packOption: String) async throws {
        // Other versions than the vendored ones, or the run proves nothing.
        let versions = try String(contentsOfFile: Self.otherLibraries + "/VERSIONS", encoding: .utf8)
        try #require(!versions.contains("lz4 1.9.4") && !versions.contains("zstd 1.5.4"), "\(versions)")
        let scratch = try TemporaryFolder()
        try Self.releases(in: scratch)
        for release in ["v1", "v2"] {
            let pack = try await CLIRunner.runDetached([
                "pack", scratch.file(release), "-o", scratch.file(release + ".webarc"), packOption, "-q",
            ])
            try #require(pack.status == 0, "\(pack.stderr)")
        }
        let published = try Data(contentsOf: URL(fileURLWithPath: scratch.file("v2.webarc")))
        var other = ProcessInfo.processInfo.environment
        other["LD_LIBRARY_PATH"] = Self.otherLibraries
        for (name, options) in [("u.webarc", [String]()), ("u.webarcu", ["--compact"])] {
            let diff = try await CLIRunner.runDetached(
                ["diff", scratch.file("v1.webarc"), scratch.file("v2.webarc"), "-o", scratch.file(name), "-q"]
                    + options)
            try #require(diff.status == 0, "\(diff.stderr)")
            let result = scratch.file("applied-" + name + ".webarc")
            let apply = try await CLIRunner.runDetached(
                ["apply", scratch.file("v1.webarc"), scratch.file(name), "-o", result, "--json"], environment: other)
            #expect(apply.status == 0, "\(name) \(packOption): \(apply.stderr)")
            #expect(
                (try? Data(contentsOf: URL(fileURLWithPath: result))) == published,
                "\(name) \(packOption): not the published archive")
        }
    }
}
