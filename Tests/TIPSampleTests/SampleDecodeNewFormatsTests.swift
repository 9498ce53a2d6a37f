import Foundation
import Testing

/// `tip-sample decode` on the TIFF, BMP, TGA, ICO and APNG test files, run as a child process.
@Suite("Sample decode command: the new formats")
struct SampleDecodeNewFormatsTests {
    static let fixtures: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<2 { url.deleteLastPathComponent() }  // TIPSampleTests, Tests
        return url.appendingPathComponent("CodecFixtures")
    }()

    /// (file, type printed, original size, frames, output written as)
    static let cases: [(String, String, String, Int, String)] = [
        ("tiff/orientation6.tif", "public.tiff", "13x21", 1, "bmp"),
        ("tiff/rgba8-tiled.tif", "public.tiff", "21x13", 1, "tga"),
        ("bmp/rle4.bmp", "com.microsoft.bmp", "21x13", 1, "tif"),
        ("tga/rgba32-rle-topleft.tga", "com.truevision.tga-image", "21x13", 1, "png"),
        ("ico/bmp-entries.ico", "com.microsoft.ico", "32x32", 1, "png"),
        ("apng/dispose-blend.png", "public.png", "21x13", 5, "png"),
    ]

    @Test("prints the type, sizes and frames, and writes the result", arguments: cases.indices)
    func decode(_ index: Int) async throws {
        let (path, type, original, frames, outputType) = Self.cases[index]
        try await SampleTool.withTemporaryDirectory { directory in
            let out = directory.appendingPathComponent("out.\(outputType)")
            let run = try await SampleTool.run([
                "decode", Self.fixtures.appendingPathComponent(path).path, "--size", "10x10",
                "--mode", "scale-aspect-fit", "--out", out.path, "--repeat", "3",
            ])
            #expect(run.status == 0, "stderr: \(run.stderr)")
            #expect(run.stdout.contains("type: \(type)"), "\(run.stdout)")
            #expect(run.stdout.contains("original: \(original)"), "\(run.stdout)")
            #expect(run.stdout.contains("frames: \(frames)"), "\(run.stdout)")
            #expect(run.stdout.contains("median:"))
            #expect(!run.stdout.contains("partial"))
            // The written file decodes again.
            let again = try await SampleTool.run(["decode", out.path])
            #expect(again.status == 0, "stderr: \(again.stderr)")
        }
    }

    @Test("a cut file is decoded as partial, written, and exits 3 with a warning; a damaged header is an error")
    func badFiles() async throws {
        try await SampleTool.withTemporaryDirectory { directory in
            let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("bmp/rgb24.bmp"))
            let cut = directory.appendingPathComponent("cut.bmp")
            try data.prefix(data.count - 300).write(to: cut)
            let written = directory.appendingPathComponent("cut.png")
            let partial = try await SampleTool.run(["decode", cut.path, "--out", written.path])
            #expect(partial.status == 3)
            #expect(partial.stdout.contains("partial: yes"))
            #expect(partial.stderr.contains("warning: \(cut.path) is incomplete"))
            #expect(FileManager.default.fileExists(atPath: written.path))
            var broken = [UInt8](try Data(contentsOf: Self.fixtures.appendingPathComponent("tga/rgb24.tga")))
            broken[2] = 77  // no such image type
            let bad = directory.appendingPathComponent("bad.tga")
            try Data(broken).write(to: bad)
            let failed = try await SampleTool.run(["decode", bad.path])
            #expect(failed.status != 0)
            #expect(failed.stderr.contains("error:"))
        }
    }
}
