// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "webarc",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WebArc", targets: ["WebArc"]),
        .library(name: "WebArcReplay", targets: ["WebArcReplay"]),
        .library(name: "WebArcHTML", targets: ["WebArcHTML"]),
        .library(name: "WebArcURLProtocol", targets: ["WebArcURLProtocol"]),
        .library(name: "WebArcServer", targets: ["WebArcServer"]),
        .library(name: "WebArcInterop", targets: ["WebArcInterop"]),
        .library(name: "WebArcRemote", targets: ["WebArcRemote"]),
        .library(name: "WebArcSearch", targets: ["WebArcSearch"]),
        .executable(name: "webarc", targets: ["WebArcCLI"]),
        .executable(name: "webarc-capture", targets: ["WebArcCaptureCLI"]),
        .library(name: "WebArcZim", targets: ["WebArcZim"]),
        .executable(name: "webarc-zim", targets: ["WebArcZimCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
        // Already in the graph through AsyncHTTPClient; named for the HTTP/2 test server only.
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.30.0"),
        // `swift package generate-documentation` for the DocC catalogs (Tools/docs.sh); a
        // command plugin, so nothing of it is linked into a product.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // liblz4 1.9.4 and libzstd 1.5.4 (Debian 12's), vendored: `apply` writes the publisher's
        // archive again byte for byte, so every webarc must compress alike, whatever the system's
        // libraries (another version codes differently; Apple platforms have none). Their public
        // symbols are hidden, so a system libzstd that libzim loads keeps its own. Each folder's
        // README says where the files come from and what changing them breaks.
        .target(
            name: "CLZ4",
            exclude: ["LICENSE", "README.md"],
            cSettings: [.define("LZ4LIB_VISIBILITY", to: "__attribute__((visibility(\"hidden\")))")]
        ),
        // Zstandard: delta chunks (codec 3, spec §6.2), `pack --zstd`, compact updates.
        .target(
            name: "CZstd",
            exclude: ["LICENSE", "COPYING", "README.md"],
            cSettings: [
                .define("ZSTDLIB_VISIBLE", to: "__attribute__((visibility(\"hidden\")))"),
                .define("ZSTDERRORLIB_VISIBLE", to: "__attribute__((visibility(\"hidden\")))"),
                .define("ZDICTLIB_VISIBLE", to: "__attribute__((visibility(\"hidden\")))"),
            ]
        ),
        // MD5 of sixteen bodies and SHA-256 of sixteen chunks at once on AVX-512, and one SHA-256
        // stream with SHA-NI that can go on from a lane (C files, no flags: each kernel names its
        // target itself and the CPU is asked at run time). `verify` and `pack` hash every body, and
        // sixteen streams side by side hash several times the bytes of one (measurements:
        // Tools/bench/NOTES.md, 'Package.swift').
        .target(name: "CHashLanes"),
        // Format, reader, writer, verification. Depends on nothing heavier than lz4, zstd and swift-crypto.
        .target(
            name: "WebArc",
            dependencies: [
                "CLZ4",
                "CZstd",
                "CHashLanes",
                "CWriteback",
                "CAffinity",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The replay engine: which record answers a request (exact key, then the fuzzy rules of
        // Spec/replay.md), conditionals, ranges, redirect chains, which stored headers and
        // targets may go out. No networking, so the server, the URL protocol and `cat -L` share it.
        .target(name: "WebArcReplay", dependencies: ["WebArc"]),
        // The one HTML tokenizer (and the CSS `url()` scanner) that export, capture and the
        // server's link rewriting read pages with. It depends on nothing, not even Foundation:
        // HTML is not part of the format, so the core does not carry it, and the fuzz target
        // and its tests build in seconds.
        .target(name: "WebArcHTML"),
        // Full-text search: visible text and its terms, the index inside an archive (an
        // optional part of the format the core writes through a hook), ranking and snippets.
        .target(name: "WebArcSearch", dependencies: ["WebArc", "WebArcHTML"]),
        // URLSession replay and recording through a URLProtocol subclass.
        .target(name: "WebArcURLProtocol", dependencies: ["WebArc", "WebArcReplay", "WebArcSearch"]),
        // The HTTP server behind `webarc serve`: SwiftNIO's HTTP/1 pipeline directly (more
        // throughput than Hummingbird here, and a shorter build).
        .target(
            name: "WebArcServer",
            dependencies: [
                "WebArc",
                "WebArcReplay",
                "WebArcHTML",
                "WebArcSearch",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Archives read in place over HTTP(S) range requests (a CDN, an object store, any static
        // server): AsyncHTTPClient on the SwiftNIO that `serve` already links, so `webarc` does not
        // need FoundationNetworking. It costs build time (mostly NIOSSL's BoringSSL) and binary
        // size, but no new shared library, so `webarc cat FILE` starts no slower.
        .target(
            name: "WebArcRemote",
            dependencies: [
                "WebArc",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // glibc's mallopt, with which `webarc pack` keeps one allocation arena (its peak memory).
        .systemLibrary(name: "CMalloc"),
        // Linux's sync_file_range, with which the archive writer starts writing body data to disk
        // as it goes (the fsync before the rename then waits for little).
        .systemLibrary(name: "CWriteback"),
        // Linux's thread CPU affinity, with which pack's workers keep to a core each (the
        // scheduler left one core idle while both ran on the other).
        .systemLibrary(name: "CAffinity"),
        // zlib for gzip WARC records and gzip/deflate HTTP bodies; only WebArcInterop imports it.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // Refresh: revalidates an archive against the live site into an update archive.
        .target(
            name: "WebArcRefresh",
            dependencies: [
                "WebArc",
                "WebArcReplay",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // Import from WARC, HAR, .webarchive; export to them. The core never imports it.
        .target(
            name: "WebArcInterop",
            dependencies: [
                "WebArc",
                "WebArcHTML",
                "WebArcReplay",
                "CZlib",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // What both command-line binaries share: exit codes, stdout/stderr output, progress,
        // interrupt cleanup.
        .target(
            name: "WebArcCLISupport",
            dependencies: [
                "WebArc",
                "CMalloc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // `webarc`. It must not link WebArcURLProtocol: FoundationNetworking brings libcurl and
        // dozens of shared libraries, whose loading would slow every start of `webarc cat`.
        .executableTarget(
            name: "WebArcCLI",
            dependencies: [
                "WebArc",
                "WebArcReplay",
                "WebArcCLISupport",
                "WebArcServer",
                "WebArcSearch",
                "WebArcInterop",
                "WebArcRemote",
                "WebArcRefresh",
                "CMalloc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // A release `webarc` on Linux is a static executable, so that a one-shot command such
            // as `cat` keeps pace with `unzip -p`: linked dynamically it spent much of its time in
            // the dynamic loader (relocations of a large binary, and `dladdr` over the symbols that
            // `-static-stdlib` exports), which a static executable does not do at all. lz4 and zstd
            // are the package's own (CLZ4, CZstd); zlib links from the `.a` of its -dev package.
            // glibc warns that `getaddrinfo` and `getpw*` still load its NSS modules at run time:
            // the binary wants the glibc it was built with, as a `--static-swift-stdlib` one does.
            // Debug builds (and tests) stay dynamic.
            linkerSettings: [.unsafeFlags(["-static-executable"], .when(platforms: [.linux], configuration: .release))]
        ),
        // `webarc-capture`, the networking half of the CLI: `webarc capture` execs it.
        .executableTarget(
            name: "WebArcCaptureCLI",
            dependencies: [
                "WebArc",
                "WebArcCLISupport",
                "WebArcHTML",
                "WebArcSearch",
                "WebArcURLProtocol",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // libzim (Debian libzim-dev), for ZIM import and export only. Debian ships no libzim.a, so
        // it cannot go into the static `webarc`: the companion `webarc-zim` links it, and
        // `webarc import FILE.zim` and `webarc export --format zim` run that as a child process
        // (libzim crashes on some hostile files: the child dies, `webarc` reports it).
        .systemLibrary(
            name: "CZim",
            pkgConfig: "libzim",
            providers: [.apt(["libzim-dev"])]
        ),
        // A small extern "C" layer over libzim's C++ API that catches every C++ exception and
        // returns it as an error message (a C shim rather than Swift's C++ interop, which would
        // make every module importing it build in C++ mode and could not catch exceptions).
        .target(name: "CZimShim", dependencies: ["CZim"]),
        // ZIM import and export through CZimShim.
        .target(
            name: "WebArcZim",
            dependencies: ["WebArc", "WebArcInterop", "WebArcReplay", "WebArcHTML", "CZimShim", "CZlib", "CZstd"]
        ),
        // `webarc-zim`: `webarc import FILE.zim` and `webarc export --format zim` run it.
        .executableTarget(
            name: "WebArcZimCLI",
            dependencies: [
                "WebArc",
                "WebArcCLISupport",
                "WebArcInterop",
                "WebArcSearch",
                "WebArcZim",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "WebArcZimTests", dependencies: ["WebArcZim", "WebArcInterop", "WebArc", "WebArcTestSupport"]),
        .testTarget(name: "WebArcTests", dependencies: ["WebArc", "WebArcTestSupport"]),
        .testTarget(name: "WebArcReplayTests", dependencies: ["WebArcReplay", "WebArc", "WebArcTestSupport"]),
        .testTarget(name: "WebArcHTMLTests", dependencies: ["WebArcHTML", "WebArcTestSupport"]),
        .testTarget(
            name: "WebArcSearchTests", dependencies: ["WebArcSearch", "WebArc", "WebArcTestSupport"],
            // Word lists read by path (their recipes are the Tools scripts named in them).
            exclude: ["Fixtures"]),
        // What the test targets share: temporary folders, a seeded generator, waiting on events, a tiny
        // 127.0.0.1 HTTP server and a `webarc serve` process.
        .target(name: "WebArcTestSupport", path: "Tests/WebArcTestSupport"),
        .testTarget(
            name: "WebArcURLProtocolTests",
            dependencies: ["WebArcURLProtocol", "WebArcReplay", "WebArc", "WebArcSearch", "WebArcTestSupport"]),
        .testTarget(
            name: "WebArcServerTests",
            dependencies: [
                "WebArcServer", "WebArcReplay", "WebArc", "WebArcSearch", "WebArcTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ]),
        .testTarget(
            name: "WebArcInteropTests", dependencies: ["WebArcInterop", "WebArc", "WebArcReplay", "WebArcTestSupport"]),
        .testTarget(name: "WebArcRefreshTests", dependencies: ["WebArcRefresh", "WebArc", "WebArcTestSupport"]),
        // Remote reading against a NIO range server on 127.0.0.1 with fault injection and TLS.
        .testTarget(
            name: "WebArcRemoteTests",
            dependencies: [
                "WebArcRemote", "WebArc", "WebArcServer", "WebArcURLProtocol", "WebArcCLI", "WebArcSearch",
                "WebArcTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
            ],
            // The test certificate, read by path (its recipe is in the folder's README).
            exclude: ["Fixtures"]
        ),
        .testTarget(
            name: "WebArcCLITests",
            dependencies: ["WebArc", "WebArcCLI", "WebArcCaptureCLI", "WebArcZimCLI", "WebArcTestSupport"],
            // Hostile inputs, read by path (each folder has its README).
            exclude: ["Fixtures"]),
    ],
    swiftLanguageModes: [.v6]
)

// A release build reaches generic type metadata through direct accessors and statically
// specialized metadata, not through mangled names resolved at run time: each such lookup scans
// every protocol conformance in the static binary, which a one-shot command such as `cat` would
// pay at every start. Debug builds and the tests are unchanged. C targets take no
// Swift settings.
let directMetadataAccess: [SwiftSetting] = [
    .unsafeFlags(
        [
            "-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors",
            "-Xfrontend", "-prespecialize-generic-metadata",
        ], .when(configuration: .release))
]
for target in package.targets where target.type == .regular || target.type == .executable {
    guard !target.name.hasPrefix("C") else { continue }
    target.swiftSettings = (target.swiftSettings ?? []) + directMetadataAccess
}
