// swift-tools-version:6.0
// Fuzz targets for webarc, built with libFuzzer and AddressSanitizer: see README.md and run.sh.
// Its own package, so that the sanitizer build (its own .build here) never invalidates the
// root package's build.
import PackageDescription

/// A fuzz target: one executable whose single file (not `main.swift`) exports
/// `LLVMFuzzerTestOneInput`; libFuzzer provides `main`.
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: dependencies, path: "Sources/\(name)")
}

let webArc: Target.Dependency = .product(name: "WebArc", package: "webarc")
let interop: Target.Dependency = .product(name: "WebArcInterop", package: "webarc")
let search: Target.Dependency = .product(name: "WebArcSearch", package: "webarc")
let html: Target.Dependency = .product(name: "WebArcHTML", package: "webarc")

let package = Package(
    name: "webarc-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "webarc", path: "../.."),
        // For `HTTPHeaders`, which the remote reader's `Validator` reads (the root package's own version).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // What the targets share: the in-memory byte source, the page wrapper, the scratch directory.
        .target(name: "FuzzSupport", dependencies: [webArc, interop]),
        fuzzTarget("FuzzArchive", ["FuzzSupport"]),
        fuzzTarget("FuzzArchivePages", ["FuzzSupport"]),
        fuzzTarget("FuzzURLKey", [webArc]),
        fuzzTarget("FuzzWARC", ["FuzzSupport"]),
        fuzzTarget("FuzzHAR", ["FuzzSupport"]),
        fuzzTarget("FuzzWebArchive", ["FuzzSupport"]),
        fuzzTarget("FuzzWACZ", ["FuzzSupport"]),
        // webarc's own ZIM parsers, not libzim (see README.md); WebArcZim still links libzim-dev.
        fuzzTarget("FuzzZim", ["FuzzSupport", webArc, .product(name: "WebArcZim", package: "webarc")]),
        fuzzTarget("FuzzHTTPRequest", [webArc, .product(name: "WebArcReplay", package: "webarc")]),
        fuzzTarget("FuzzHTML", [html]),
        fuzzTarget("FuzzCompactUpdate", [webArc]),
        fuzzTarget(
            "FuzzRemoteResponse",
            [.product(name: "WebArcRemote", package: "webarc"), .product(name: "NIOHTTP1", package: "swift-nio")]),
        fuzzTarget("FuzzSigningFiles", ["FuzzSupport", webArc]),
        // WebArcSearch's text half (Sources/WebArcSearch/Text, through a symbolic link: a target's
        // path must be inside this package), which needs WebArcHTML only: the two text targets
        // build without WebArc, swift-crypto and BoringSSL.
        .target(name: "WebArcSearchText", dependencies: [html], path: "Sources/WebArcSearchText"),
        fuzzTarget("FuzzSearchQuery", ["WebArcSearchText"]),
        fuzzTarget("FuzzVisibleText", ["WebArcSearchText"]),
        fuzzTarget("FuzzSearchIndex", ["FuzzSupport", webArc, search]),
    ],
    swiftLanguageModes: [.v6]
)
