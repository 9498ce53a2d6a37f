// swift-tools-version: 6.1
import PackageDescription

// libFuzzer targets for TIP's decoders. Build and run them with `scripts/fuzz` (it passes the
// sanitizer flags, which SwiftPM only accepts on the command line, and keeps the build in Fuzz/.build).
//
// Each `Fuzz*` executable has a Swift `@main` that hands its test function to libFuzzer's
// `LLVMFuzzerRunDriver` (see FuzzSupport/FuzzDriver.swift).

let package = Package(
    name: "TIPFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "TIP", path: "..")
    ],
    targets: [
        // What the fuzzers share: bounded decoding options, the chunker, the incremental driver.
        .target(name: "FuzzSupport", dependencies: ["CFuzzerDriver", .product(name: "TIP", package: "TIP")]),
        // libFuzzer's driver entry point, declared for Swift.
        .systemLibrary(name: "CFuzzerDriver"),
        .executableTarget(name: "FuzzJPEG", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzJPEGIncremental", dependencies: ["FuzzSupport"]),
        // TIP's JPEG decode against TurboJPEG alone: the same pixels (a differential fuzzer).
        .executableTarget(name: "FuzzJPEGDifferential", dependencies: ["FuzzSupport", "CTurboJPEGReference"]),
        .systemLibrary(name: "CTurboJPEGReference"),
        .executableTarget(name: "FuzzPNG", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzGIF", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzTIFF", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzBMP", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzTGA", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzICO", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "FuzzAPNG", dependencies: ["FuzzSupport"]),
        .executableTarget(
            name: "FuzzDetect",
            dependencies: [
                "FuzzSupport",
                .product(name: "TIPWebP", package: "TIP"),
                .product(name: "TIPJPEG2000", package: "TIP"),
                .product(name: "TIPHEIF", package: "TIP"),
            ]
        ),
        .executableTarget(
            name: "FuzzWebP",
            dependencies: ["FuzzSupport", .product(name: "TIPWebP", package: "TIP")]
        ),
        .executableTarget(
            name: "FuzzJPEG2000",
            dependencies: ["FuzzSupport", .product(name: "TIPJPEG2000", package: "TIP")]
        ),
        .executableTarget(
            name: "FuzzHEIF",
            dependencies: ["FuzzSupport", .product(name: "TIPHEIF", package: "TIP")]
        ),
        // Writes the generated seed images (the project's own encoders) into a corpus directory.
        .executableTarget(
            name: "FuzzSeeds",
            dependencies: [
                "FuzzSupport",
                .product(name: "TIPWebP", package: "TIP"),
                .product(name: "TIPJPEG2000", package: "TIP"),
                .product(name: "TIPHEIF", package: "TIP"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
