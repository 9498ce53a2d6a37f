import Foundation
import TIP
import Testing

/// `tip-sample decode --process`, run as a child process.
@Suite("Sample decode with processors")
struct SampleDecodeProcessTests {
    /// A 120x80 JPEG of a gradient, written into `directory`.
    static func photo(in directory: URL) throws -> URL {
        var bitmap = try #require(Bitmap(width: 120, height: 80, format: .rgbx8))
        for y in 0..<80 { for x in 0..<120 { bitmap.setPixel(x: x, y: y, SIMD4(UInt8(x * 2), UInt8(y * 3), 90, 255)) } }
        let url = directory.appendingPathComponent("photo.jpg")
        try CodecCatalogue.shared.encodeImage(
            ImageContainer(image: bitmap), toFilePath: url.path, type: .jpeg, quality: 0.9)
        return url
    }

    @Test("Processors run in order after the decode and the output file holds the processed image")
    func processed() async throws {
        try await SampleTool.withTemporaryDirectory { directory in
            let input = try Self.photo(in: directory)
            let output = directory.appendingPathComponent("avatar.png")
            let run = try await SampleTool.run([
                "decode", input.path, "--size", "48x48", "--mode", "scale-aspect-fill",
                "--process", "crop", "--process", "circle", "--out", output.path,
            ])
            #expect(run.status == 0, "stderr: \(run.stderr)")
            #expect(run.stdout.contains("output: 48x48"))
            #expect(run.stdout.contains("processors: tip.crop(target,centre)|tip.circle"))
            let (written, _) = try CodecCatalogue.shared.decodeImage(Data(contentsOf: output))
            #expect(written.image.width == 48 && written.image.height == 48)
            #expect(written.image.pixel(x: 0, y: 0)[3] == 0, "the corner is outside the circle")
            #expect(written.image.pixel(x: 24, y: 24)[3] == 255)

            let blurred = try await SampleTool.run([
                "decode", input.path, "--process", "grayscale", "--process", "blur=2.5",
                "--process", "rounded=6", "--process", "fit", "--size", "60x60", "--repeat", "3",
            ])
            #expect(blurred.status == 0, "stderr: \(blurred.stderr)")
            #expect(
                blurred.stdout.contains(
                    "processors: tip.grayscale|tip.blur(2.5)|tip.rounded(6)|tip.fit(target,upscale)"))
            #expect(blurred.stdout.contains("output: 60x40"))
            #expect(blurred.stdout.contains("median processing: "))
        }
    }

    @Test("Impossible parameters and unknown names fail with a message")
    func errors() async throws {
        try await SampleTool.withTemporaryDirectory { directory in
            let input = try Self.photo(in: directory)
            let negative = try await SampleTool.run(["decode", input.path, "--process", "rounded=-2"])
            #expect(negative.status != 0)
            #expect(negative.stderr.contains("invalid parameter for tip.rounded(-2)"))
            let unknown = try await SampleTool.run(["decode", input.path, "--process", "sparkle"])
            #expect(unknown.status != 0)
            #expect(unknown.stderr.contains("--process"))
            let noSize = try await SampleTool.run(["decode", input.path, "--process", "crop"])
            #expect(noSize.status != 0)
            #expect(noSize.stderr.contains("needs a size"))
        }
    }
}
