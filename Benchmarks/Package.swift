// swift-tools-version: 6.1
import PackageDescription

// The benchmark suite lives apart from the library so the library and test builds stay light.
// Run everything with `Benchmarks/run` (see README).
let package = Package(
    name: "TIPBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "TIP", path: ".."),
        .package(path: "../ImageServer"),
        // The optional AsyncHTTPClient provider, measured by the download and network-fetch rows.
        .package(path: "../Packages/TIPAsyncHTTPClient"),
    ],
    targets: [
        // TurboJPEG called directly: the baseline the codec is measured against.
        .systemLibrary(name: "CTurboJPEGDirect", pkgConfig: "libturbojpeg"),
        // libwebp called directly: the baseline the WebP codec is measured against.
        .systemLibrary(name: "CWebPDirect", pkgConfig: "libwebp"),
        // libtiff and stb_image called directly: the baselines of the TIFF, BMP and TGA codecs.
        .systemLibrary(name: "CTIFFDirect", pkgConfig: "libtiff-4"),
        .systemLibrary(name: "CSTBDirect"),
        // Counts heap allocations by defining malloc & co. in the executable (the image-table rows).
        .target(name: "CAllocationCounter"),
        .executableTarget(
            name: "TIPBenchmarks",
            dependencies: [
                .product(name: "TIP", package: "TIP"),
                // The embedded loopback server the download benchmarks fetch from.
                .product(name: "TIPImageServer", package: "ImageServer"),
                .product(name: "TIPAsyncHTTPClient", package: "TIPAsyncHTTPClient"),
                // The optional WebP codec, measured by the webp rows.
                .product(name: "TIPWebP", package: "TIP"),
                // Image tables, measured by the tables rows.
                .product(name: "TIPImageTables", package: "TIP"),
                "CAllocationCounter",
                // The optional JPEG 2000, HEIC and AVIF codecs, measured by the codecs3 rows.
                .product(name: "TIPJPEG2000", package: "TIP"),
                .product(name: "TIPHEIF", package: "TIP"),
                "CTurboJPEGDirect",
                "CWebPDirect",
                "CTIFFDirect",
                "CSTBDirect",
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
