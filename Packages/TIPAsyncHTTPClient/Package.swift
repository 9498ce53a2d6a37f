// swift-tools-version: 6.1
import PackageDescription

// `TIPAsyncHTTPClient`: a TIP download provider on AsyncHTTPClient, for services already on SwiftNIO that want
// TIP's downloads on their own event loops and connection pools. A package of its own so that a consumer of the
// `TIP` library never fetches AsyncHTTPClient or SwiftNIO: the root package does not name this one
// (`scripts/check-consumer-dependencies`).
let package = Package(
    name: "TIPAsyncHTTPClient",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "TIPAsyncHTTPClient", targets: ["TIPAsyncHTTPClient"])
    ],
    dependencies: [
        .package(name: "TIP", path: "../.."),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.26.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.81.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.30.0"),
        .package(path: "../../ImageServer"),  // the tests' origin
    ],
    targets: [
        .target(
            name: "TIPAsyncHTTPClient",
            dependencies: [
                .product(name: "TIP", package: "TIP"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .testTarget(
            name: "TIPAsyncHTTPClientTests",
            dependencies: [
                "TIPAsyncHTTPClient",
                .product(name: "TIP", package: "TIP"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "TIPImageServer", package: "ImageServer"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
