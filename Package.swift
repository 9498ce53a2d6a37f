// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "TIP",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "TIP", targets: ["TIP"]),
        .library(name: "TIPImageServer", targets: ["TIPImageServer"]),
        // The optional WebP codec (libwebp), registered by the user: `TIPWebP.register()`.
        .library(name: "TIPWebP", targets: ["TIPWebP"]),
        .executable(name: "tip-sample", targets: ["TIPSample"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.65.0"),
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
        // The resampler's AVX2 passes (selected at run time; the portable passes are Swift).
        .target(name: "CResampler"),
        .target(
            name: "TIP",
            dependencies: [
                "CTurboJPEG", "CGIF", "CJPEGIncremental", "CPNG", "CXattr", "CResampler",
                .product(name: "Logging", package: "swift-log"),
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
        .executableTarget(
            name: "TIPSample",
            dependencies: [
                "TIP",
                "TIPImageServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Samples/TIPSample"
        ),
        // Runs the `tip-sample` executable as a child process and checks its output.
        .testTarget(
            name: "TIPSampleTests",
            dependencies: ["TIPSample", "TIP", "TIPImageServer"]
        ),
        .testTarget(
            name: "TIPTests",
            // The crash-consistency tests run the harness executable as a child process.
            dependencies: ["TIP", "TIPImageServer", "TIPCacheCrashHarness", "TIPStressHarness"]
        ),
        // The embedded HTTP/1.1 image server (loopback only) behind the sample, the tests and the benchmarks.
        .target(
            name: "TIPImageServer",
            dependencies: [
                "TIP",  // for its `Locked` (package access)
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "TIPImageServerTests",
            dependencies: ["TIPImageServer"]
        ),
        // A child process the crash-consistency tests kill with SIGKILL in the middle of cache writes.
        .executableTarget(
            name: "TIPCacheCrashHarness",
            dependencies: ["TIP"],
            path: "Tests/CacheCrashHarness"
        ),
        // The stress executable (10,000 fetches across 4 pipelines), run under LeakSanitizer or valgrind;
        // the tests run a smaller count in-process.
        .executableTarget(
            name: "TIPStressHarness",
            dependencies: ["TIP", "TIPImageServer"],
            path: "Tests/StressHarness"
        ),
    ],
    swiftLanguageModes: [.v6]
)
