// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "webarc",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "WebArc", targets: ["WebArc"]),
        .executable(name: "webarc", targets: ["WebArcCLI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        .systemLibrary(
            name: "CLZ4",
            pkgConfig: "liblz4",
            providers: [.apt(["liblz4-dev"])]
        ),
        .target(
            name: "WebArc",
            dependencies: [
                "CLZ4",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "WebArcCLI",
            dependencies: [
                "WebArc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "WebArcTests",
            dependencies: ["WebArc"],
            resources: []
        ),
    ],
    swiftLanguageModes: [.v6]
)
