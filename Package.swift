// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "TIP",
    platforms: [.macOS(.v15)],
    products: [
        // Only the library and its codec plug-ins are products: SwiftPM fetches, for a package that depends on
        // this one, only the dependencies of product targets, so the sample, the harnesses and the tests (and
        // the image server package and SwiftNIO they use) stay out of a consumer's build. Keep it that way:
        // `scripts/check-consumer-dependencies` fails when a consumer of `TIP` fetches more than swift-log and
        // swift-metrics.
        .library(name: "TIP", targets: ["TIP"]),
        // The optional WebP codec (libwebp), registered by the user: `TIPWebP.register()`.
        .library(name: "TIPWebP", targets: ["TIPWebP"]),
        // Pre-rendered, memory-mapped image tables of fixed formats (FastImageCache on TIP's pipeline).
        .library(name: "TIPImageTables", targets: ["TIPImageTables"]),
        // The optional JPEG 2000 codec (OpenJPEG), registered by the user: `TIPJPEG2000.register()`.
        .library(name: "TIPJPEG2000", targets: ["TIPJPEG2000"]),
        // The optional HEIC and AVIF codec (libheif), registered by the user: `TIPHEIF.register()`.
        .library(name: "TIPHEIF", targets: ["TIPHEIF"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        // Used by the sample, the harnesses and the tests only (never by a product target).
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(path: "ImageServer"),  // TIPImageServer, on SwiftNIO
    ],
    targets: [
        // TurboJPEG: one-shot decode with DCT scaling, encode, header parsing.
        .systemLibrary(
            name: "CTurboJPEG",
            pkgConfig: "libturbojpeg",
            providers: [.apt(["libturbojpeg0-dev"])]
        ),
        // giflib 5 (Debian ships libgif.pc; the module map links "gif" for systems that do not).
        .systemLibrary(
            name: "CGIF",
            providers: [.apt(["libgif-dev"])]
        ),
        // libwebp + libwebpdemux, only for the optional `TIPWebP` codec.
        .systemLibrary(
            name: "CWebP",
            pkgConfig: "libwebp",
            providers: [.apt(["libwebp-dev"])]
        ),
        // libcurl's multi interface, for the default download provider (typed wrappers for its variadic calls).
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        // OpenJPEG 2.5, only for the optional `TIPJPEG2000` codec.
        .systemLibrary(
            name: "COpenJPEG",
            pkgConfig: "libopenjp2",
            providers: [.apt(["libopenjp2-7-dev"])]
        ),
        // libheif (HEVC through libde265/x265, AV1 through dav1d/aom), only for the optional `TIPHEIF` codec.
        .systemLibrary(
            name: "CHeif",
            pkgConfig: "libheif",
            providers: [.apt(["libheif-dev"])]
        ),
        // <sys/xattr.h>, which Swift's Glibc module leaves out: disk-cache metadata in extended attributes.
        .systemLibrary(name: "CXattr"),
        // Our C shim over libjpeg: incremental (suspending) decoding with setjmp error handling kept in C.
        .target(
            name: "CJPEGIncremental",
            linkerSettings: [.linkedLibrary("jpeg")]
        ),
        // Our C shim over libpng (setjmp error handling kept in C), with a libdeflate fast path for
        // whole PNGs already in memory.
        .target(
            name: "CPNG",
            linkerSettings: [.linkedLibrary("png16"), .linkedLibrary("deflate")]
        ),
        // Our C shim over libtiff 4.5 (TIFF in memory, errors caught per handle, RGBA decoding, LZW encoding).
        .target(
            name: "CTIFF",
            linkerSettings: [.linkedLibrary("tiff")]
        ),
        // The resampler's AVX2 passes (selected at run time; the portable passes are Swift).
        .target(name: "CResampler"),
        .target(
            name: "TIP",
            dependencies: [
                "CTurboJPEG", "CGIF", "CJPEGIncremental", "CPNG", "CXattr", "CCurl", "CResampler",
                .product(name: "Logging", package: "swift-log"),
                "CTIFF",
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        // The WebP codec plug-in (static, animated, incremental; encodes static images).
        .target(
            name: "TIPWebP",
            dependencies: ["TIP", "CWebP"]
        ),
        .testTarget(
            name: "TIPWebPTests",
            dependencies: ["TIPWebP", "TIP"]
        ),
        // Image tables: one memory-mapped file per format, filled through an ImagePipeline.
        .target(
            name: "TIPImageTables",
            dependencies: ["TIP"]
        ),
        .testTarget(
            name: "TIPImageTablesTests",
            // The crash-consistency test runs the harness executable as a child process.
            dependencies: [
                "TIPImageTables", "TIP", "TIPTestSupport", .product(name: "TIPImageServer", package: "ImageServer"),
                "TIPImageTablesCrashHarness",
            ]
        ),
        // A child process the image-table crash test kills with SIGKILL in the middle of writes.
        .executableTarget(
            name: "TIPImageTablesCrashHarness",
            dependencies: ["TIPImageTables", "TIP", "TIPTestSupport"],
            path: "Tests/ImageTablesCrashHarness"
        ),
        // The JPEG 2000 codec plug-in (JP2 and raw codestreams; reduced-resolution decoding; encodes).
        .target(
            name: "TIPJPEG2000",
            dependencies: ["TIP", "COpenJPEG"]
        ),
        .testTarget(
            name: "TIPJPEG2000Tests",
            dependencies: ["TIPJPEG2000", "TIP"],
            exclude: ["Fixtures"]
        ),
        // The HEIC and AVIF codec plug-in (still images, alpha, irot/imir, thumbnails; encodes where libheif can).
        .target(
            name: "TIPHEIF",
            dependencies: ["TIP", "CHeif"]
        ),
        .testTarget(
            name: "TIPHEIFTests",
            dependencies: ["TIPHEIF", "TIP"],
            exclude: ["Fixtures"]
        ),
        // `swift run -c release tip-sample`: an executable target without a product, so that its dependencies
        // are not a consumer's (SwiftPM makes the executable for this package's own builds only).
        .executableTarget(
            name: "tip-sample",
            dependencies: [
                "TIP",
                .product(name: "TIPImageServer", package: "ImageServer"),
                "TIPImageTables",
                // `tip-sample decode` reads JPEG 2000, HEIC and AVIF too.
                "TIPJPEG2000",
                "TIPHEIF",
                "TIPWebP",  // registered at start: the sample decodes and fetches WebP too
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Samples/TIPSample"
        ),
        // Runs the `tip-sample` executable as a child process and checks its output.
        .testTarget(
            name: "TIPSampleTests",
            dependencies: ["tip-sample", "TIP", .product(name: "TIPImageServer", package: "ImageServer"), "TIPWebP"]
        ),
        .testTarget(
            name: "TIPTests",
            // The crash-consistency tests run the harness executable as a child process, the callback-queue tests
            // the plain `main.swift` program.
            dependencies: [
                "TIP", "TIPTestSupport", "CJPEGRescan", .product(name: "TIPImageServer", package: "ImageServer"),
                "TIPCacheCrashHarness", "TIPStressHarness", "TIPCallbackHarness",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        // The embedded HTTP/1.1 image server (ImageServer/, a package of its own) against URLSession, curl and
        // raw sockets.
        .testTarget(
            name: "TIPImageServerTests",
            dependencies: [.product(name: "TIPImageServer", package: "ImageServer")]
        ),
        // Code the tests and the harness executables share that the products must not compile: the disk cache's
        // crash-consistency workload (package access to TIP's caches) and the image tables' one.
        .target(
            name: "TIPTestSupport",
            dependencies: ["TIP", "TIPImageTables"],
            path: "Tests/TIPTestSupport"
        ),
        // libjpeg's transcoder for the progressive decoding tests: the same coefficients in other scan scripts,
        // restart intervals and codings.
        .target(
            name: "CJPEGRescan",
            path: "Tests/CJPEGRescan",
            linkerSettings: [.linkedLibrary("jpeg")]
        ),
        // A child process the crash-consistency tests kill with SIGKILL in the middle of cache writes.
        .executableTarget(
            name: "TIPCacheCrashHarness",
            dependencies: ["TIP", "TIPTestSupport"],
            path: "Tests/CacheCrashHarness"
        ),
        // A plain `main.swift` program that fetches with the default configuration and waits on a semaphore
        // (no main loop), run as a child process by the callback-queue tests.
        .executableTarget(
            name: "TIPCallbackHarness",
            dependencies: ["TIP", .product(name: "Logging", package: "swift-log")],
            path: "Tests/CallbackHarness"
        ),
        // The stress executable (10,000 fetches across 4 pipelines), run under LeakSanitizer or valgrind;
        // the tests run a smaller count in-process.
        .executableTarget(
            name: "TIPStressHarness",
            dependencies: ["TIP", .product(name: "TIPImageServer", package: "ImageServer")],
            path: "Tests/StressHarness"
        ),
    ],
    swiftLanguageModes: [.v6]
)
