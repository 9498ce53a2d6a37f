// swift-tools-version: 6.1
import PackageDescription

// `tip-thumbnails`: an HTTP thumbnail service on Hummingbird 2 that fetches, processes and encodes images
// through TIP. A package of its own so that a consumer of the `TIP` library never fetches Hummingbird or
// SwiftNIO: the root package does not name this one (`scripts/check-consumer-dependencies`).
let package = Package(
    name: "ThumbnailService",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tip-thumbnails", targets: ["tip-thumbnails"])
    ],
    dependencies: [
        .package(name: "TIP", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // Request parsing, the host policy, the handler and the error mapping (tests start it in-process).
        .target(
            name: "ThumbnailService",
            dependencies: [
                .product(name: "TIP", package: "TIP"),
                .product(name: "TIPWebP", package: "TIP"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
        // The command line: options, then the service until SIGINT/SIGTERM.
        .executableTarget(
            name: "tip-thumbnails",
            dependencies: [
                "ThumbnailService",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "ThumbnailServiceTests",
            dependencies: [
                "ThumbnailService",
                .product(name: "TIP", package: "TIP"),
                .product(name: "TIPWebP", package: "TIP"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
