// swift-tools-version:6.0
// `rescue-count`: how many links of real archives the fuzzy replay rules rescue (Spec/replay.md §7;
// see Tools/bench/README.md, "Fuzzy rule rescues"). Its own package, like Tools/fuzz, so that
// building it never touches the root package's build.
import PackageDescription

let package = Package(
    name: "webarc-rescue",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "webarc", path: "../../..")
    ],
    targets: [
        .executableTarget(
            name: "rescue-count",
            dependencies: [
                .product(name: "WebArc", package: "webarc"),
                .product(name: "WebArcReplay", package: "webarc"),
            ],
            path: "Sources"
        )
    ],
    swiftLanguageModes: [.v6]
)
