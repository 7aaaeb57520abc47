import CLZ4
import CZstd
import Foundation
import Testing
import WebArcTestSupport

/// The vendored liblz4 and libzstd (Sources/CLZ4, Sources/CZstd) built for a 32-bit CPU without
/// SSE2 (`gcc -m32`, the stand-in here for an ARMv7 kiosk) code the bytes this 64-bit process
/// codes: `apply` encodes changed pages again and must get the publisher's bytes on either. Upstream
/// 1.9.4 and 1.5.4 do not (lz4 hashes 4 bytes where pointers are 4 bytes, zstd picks another match
/// finder without SIMD); the folders' READMEs describe the patches that make them agree.
@Suite("Vendored compressors on 32-bit CPUs", .serialized)
struct ThirtyTwoBitCompressorTests {
    static let root = repositoryRoot.path

    /// Python documentation pages (Debian's python3.11-doc): HTML as kiosks serve it.
    static let pythonDocs = "/usr/share/doc/python3.11/html/library"

    /// The levels `ZSTD_compress_usingDict` is checked at: the defaults of `--zstd` and compact
    /// updates, and the 5 to 10 whose match finder depends on SIMD.
    static let zstdLevels: [Int32] = [1, 3, 5, 9, 10, 19]

    /// Whether gcc builds and runs 32-bit x86 programs here (Debian's gcc-multilib).
    static let gcc32: Bool = {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gcc"), let folder = try? TemporaryFolder(),
            let source = try? folder.write("probe.c", "int main(void) { return sizeof(void *) == 4 ? 0 : 1; }\n"),
            let build = try? runProgram("/usr/bin/gcc", ["-m32", source, "-o", folder.file("probe")]),
            build.status == 0
        else { return false }
        return (try? runProgram(folder.file("probe"), []))?.status == 0
    }()

    static let ready = gcc32 && FileManager.default.fileExists(atPath: pythonDocs + "/functions.html")

    /// The C program: for each file named, every call in `blocks(page:previous:)`, in its order,
    /// each block written as a little-endian 32-bit length and its bytes (length 0: the call failed).
    static let harness = """
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include "lz4.h"
        #include "lz4hc.h"
        #include "zstd.h"

        static const int zstdLevels[] = {\(zstdLevels.map(String.init).joined(separator: ", "))};

        static void put(const char *p, long n) {
            if (n < 0) n = 0;
            unsigned char l[4] = {n & 255, (n >> 8) & 255, (n >> 16) & 255, (n >> 24) & 255};
            fwrite(l, 1, 4, stdout);
            fwrite(p, 1, n, stdout);
        }
        static char *slurp(const char *path, int *n) {
            FILE *f = fopen(path, "rb");
            if (!f) exit(2);
            fseek(f, 0, SEEK_END); long length = ftell(f); fseek(f, 0, SEEK_SET);
            char *bytes = malloc(length + 1);
            *n = (int)fread(bytes, 1, length, f);
            fclose(f);
            return bytes;
        }
        int main(int argc, char **argv) {
            char *prev = NULL; int prevN = 0;
            ZSTD_CCtx *z = ZSTD_createCCtx();
            for (int i = 1; i < argc; i++) {
                int n; char *src = slurp(argv[i], &n);
                int cap = LZ4_compressBound(n) + (int)ZSTD_compressBound(n);
                char *out = malloc(cap);
                put(out, LZ4_compress_default(src, out, n, cap));
                put(out, LZ4_compress_HC(src, out, n, cap, 3));
                put(out, LZ4_compress_HC(src, out, n, cap, 9));
                put(out, LZ4_compress_HC(src, out, n, cap, 12));
                if (prev) {
                    int dn = prevN > 65536 ? 65536 : prevN;
                    char *apart = malloc(dn); memcpy(apart, prev + prevN - dn, dn);
                    char *joined = malloc(dn + n); memcpy(joined, apart, dn); memcpy(joined + dn, src, n);
                    LZ4_stream_t *s = malloc(sizeof *s);
                    LZ4_initStream(s, sizeof *s); LZ4_loadDict(s, apart, dn);
                    put(out, LZ4_compress_fast_continue(s, src, out, n, cap, 1));
                    LZ4_streamHC_t *h = malloc(sizeof *h);
                    LZ4_initStreamHC(h, sizeof *h); LZ4_resetStreamHC_fast(h, 3); LZ4_loadDictHC(h, apart, dn);
                    put(out, LZ4_compress_HC_continue(h, src, out, n, cap));
                    LZ4_initStream(s, sizeof *s); LZ4_loadDict(s, joined, dn);
                    put(out, LZ4_compress_fast_continue(s, joined + dn, out, n, cap, 1));
                    LZ4_initStreamHC(h, sizeof *h); LZ4_resetStreamHC_fast(h, 9); LZ4_loadDictHC(h, joined, dn);
                    put(out, LZ4_compress_HC_continue(h, joined + dn, out, n, cap));
                    for (unsigned l = 0; l < sizeof zstdLevels / sizeof zstdLevels[0]; l++) {
                        size_t w = ZSTD_compress_usingDict(z, out, cap, src, n, prev, prevN, zstdLevels[l]);
                        put(out, ZSTD_isError(w) ? 0 : (long)w);
                    }
                    ZSTD_CCtx_reset(z, ZSTD_reset_session_and_parameters);
                    ZSTD_CCtx_setParameter(z, ZSTD_c_compressionLevel, 22);
                    ZSTD_CCtx_setParameter(z, ZSTD_c_dictIDFlag, 0);
                    ZSTD_CCtx_refPrefix(z, prev, prevN);
                    size_t w = ZSTD_compress2(z, out, cap, src, n);
                    put(out, ZSTD_isError(w) ? 0 : (long)w);
                    ZSTD_CCtx_reset(z, ZSTD_reset_session_and_parameters);
                    free(apart); free(joined); free(s); free(h); free(prev);
                }
                prev = src; prevN = n;
                free(out);
            }
            return 0;
        }

        """

    /// What the harness writes for `page`, coded here by the package's own CLZ4 and CZstd, each
    /// block named by its call.
    static func blocks(page: [UInt8], previous: [UInt8]?) -> [(call: String, bytes: [UInt8])] {
        var blocks: [(String, [UInt8])] = []
        let capacity = Int(LZ4_compressBound(Int32(page.count))) + ZSTD_compressBound(page.count)
        func coded(_ call: String, _ body: (UnsafeMutablePointer<CChar>, Int32) -> Int) {
            var output = [UInt8](repeating: 0, count: capacity)
            let written = output.withUnsafeMutableBytes {
                body($0.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(capacity))
            }
            blocks.append((call, Array(output.prefix(max(written, 0)))))
        }
        page.withUnsafeBytes { raw in
            let source = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
            let count = Int32(page.count)
            coded("LZ4_compress_default") { Int(LZ4_compress_default(source, $0, count, $1)) }
            for level: Int32 in [3, 9, 12] {
                coded("LZ4_compress_HC \(level)") { Int(LZ4_compress_HC(source, $0, count, $1, level)) }
            }
            guard let previous else { return }
            let apart = Array(previous.suffix(65536))
            let joined = apart + page
            let stream = UnsafeMutablePointer<LZ4_stream_t>.allocate(capacity: 1)
            let hc = UnsafeMutablePointer<LZ4_streamHC_t>.allocate(capacity: 1)
            defer {
                stream.deallocate()
                hc.deallocate()
            }
            apart.withUnsafeBytes { dictionary in
                let bytes = dictionary.baseAddress!.assumingMemoryBound(to: CChar.self)
                LZ4_initStream(stream, MemoryLayout<LZ4_stream_t>.size)
                LZ4_loadDict(stream, bytes, Int32(apart.count))
                coded("LZ4_compress_fast_continue, dictionary apart") {
                    Int(LZ4_compress_fast_continue(stream, source, $0, count, $1, 1))
                }
                LZ4_initStreamHC(hc, MemoryLayout<LZ4_streamHC_t>.size)
                LZ4_resetStreamHC_fast(hc, 3)
                LZ4_loadDictHC(hc, bytes, Int32(apart.count))
                coded("LZ4_compress_HC_continue 3, dictionary apart") {
                    Int(LZ4_compress_HC_continue(hc, source, $0, count, $1))
                }
            }
            joined.withUnsafeBytes { both in
                let bytes = both.baseAddress!.assumingMemoryBound(to: CChar.self)
                LZ4_initStream(stream, MemoryLayout<LZ4_stream_t>.size)
                LZ4_loadDict(stream, bytes, Int32(apart.count))
                coded("LZ4_compress_fast_continue, dictionary before the chunk") {
                    Int(LZ4_compress_fast_continue(stream, bytes + apart.count, $0, count, $1, 1))
                }
                LZ4_initStreamHC(hc, MemoryLayout<LZ4_streamHC_t>.size)
                LZ4_resetStreamHC_fast(hc, 9)
                LZ4_loadDictHC(hc, bytes, Int32(apart.count))
                coded("LZ4_compress_HC_continue 9, dictionary before the chunk") {
                    Int(LZ4_compress_HC_continue(hc, bytes + apart.count, $0, count, $1))
                }
            }
            guard let context = ZSTD_createCCtx() else { return }
            defer { ZSTD_freeCCtx(context) }
            previous.withUnsafeBytes { history in
                for level in zstdLevels {
                    coded("ZSTD_compress_usingDict \(level)") {
                        let written = ZSTD_compress_usingDict(
                            context, $0, Int($1), raw.baseAddress, raw.count, history.baseAddress, history.count, level)
                        return ZSTD_isError(written) == 0 ? written : 0
                    }
                }
                ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, 22)
                ZSTD_CCtx_setParameter(context, ZSTD_c_dictIDFlag, 0)
                ZSTD_CCtx_refPrefix(context, history.baseAddress, history.count)
                coded("ZSTD_compress2 22, prefix") {
                    let written = ZSTD_compress2(context, $0, Int($1), raw.baseAddress, raw.count)
                    return ZSTD_isError(written) == 0 ? written : 0
                }
            }
        }
        return blocks
    }

    @Test(
        "every call webarc makes codes the same bytes in a 32-bit build of the vendored sources",
        .enabled(if: ready, "needs gcc -m32 (Debian's gcc-multilib) and python3.11-doc"),
        .enabled(
            if: ProcessInfo.processInfo.environment["WEBARC_PORTABLE"] != "1",
            "the C has no portable mode: the pass with the fast paths runs it"))
    func thirtyTwoBitBuildCodesAlike() async throws {
        let scratch = try TemporaryFolder()
        let harness = try scratch.write("harness.c", Self.harness)
        // -O1: the bytes do not depend on the optimization level, and zstd.c builds faster.
        let build = try await onOwnThread {
            try runProgram(
                "/usr/bin/gcc",
                [
                    "-m32", "-O1", "-I", Self.root + "/Sources/CLZ4/include", "-I",
                    Self.root + "/Sources/CZstd/include", harness, Self.root + "/Sources/CLZ4/lz4.c",
                    Self.root + "/Sources/CLZ4/lz4hc.c", Self.root + "/Sources/CZstd/zstd.c", "-o",
                    scratch.file("harness"), "-lpthread",
                ])
        }
        try #require(build.status == 0, "\(build.stderr)")

        // 24 pages, each its first 128 KiB: over 64 KiB, where LZ4_compress_default's table
        // differs by pointer size.
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.pythonDocs)
            .filter { $0.hasSuffix(".html") }.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            .prefix(24)
        var pages: [[UInt8]] = []
        var paths: [String] = []
        for name in names {
            let bytes = try Data(
                contentsOf: URL(fileURLWithPath: Self.pythonDocs + "/" + name).resolvingSymlinksInPath())
            pages.append(Array(bytes.prefix(131_072)))
            paths.append(try scratch.write(name, pages[pages.count - 1]))
        }
        let harnessPath = scratch.file("harness")
        let pagePaths = paths
        let run = try await onOwnThread { try runProgram(harnessPath, pagePaths, timeout: 600) }
        try #require(run.status == 0, "\(run.stderr)")

        let output = [UInt8](run.stdout)
        var offset = 0
        var differing: [String: Int] = [:]
        var compared = 0
        for (index, page) in pages.enumerated() {
            for block in Self.blocks(page: page, previous: index > 0 ? pages[index - 1] : nil) {
                try #require(offset + 4 <= output.count, "the 32-bit harness wrote fewer blocks")
                let length = output[offset..<offset + 4].reversed().reduce(0) { $0 << 8 | Int($1) }
                try #require(offset + 4 + length <= output.count, "the 32-bit harness's output is cut short")
                let theirs = output[offset + 4..<offset + 4 + length]
                offset += 4 + length
                #expect(!block.bytes.isEmpty, "\(block.call) failed on \(names[names.startIndex + index])")
                if !theirs.elementsEqual(block.bytes) { differing[block.call, default: 0] += 1 }
                compared += 1
            }
        }
        #expect(offset == output.count, "the 32-bit harness wrote more blocks")
        #expect(compared == 4 + 23 * 15)
        #expect(differing.isEmpty, "calls coding otherwise in the 32-bit build (pages): \(differing)")
    }
}
