// swift-tools-version: 6.1
import PackageDescription

// The embedded HTTP/1.1 image server (loopback only, on SwiftNIO) behind TIP's tests, the sample and the
// benchmarks. A package of its own so that a consumer of the `TIP` library never fetches SwiftNIO: the root
// package uses it from test targets and the sample only, which SwiftPM does not resolve for consumers.
let package = Package(
    name: "TIPImageServer",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "TIPImageServer", targets: ["TIPImageServer"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio", from: "2.65.0")
    ],
    targets: [
        .target(
            name: "TIPImageServer",
            dependencies: [
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        )
    ],
    swiftLanguageModes: [.v6]
)
