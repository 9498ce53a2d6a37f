import Foundation
import TIP
import TIPWebP
import Testing

/// `tip-sample decode`, run as a child process: the sample links and registers the WebP codec the package ships.
@Suite("Sample decode")
struct SampleDecodeTests {
    /// `../shared/fixtures` next to the project, when present.
    static let fixtures: URL? = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // SampleDecodeTests.swift, TIPSampleTests, Tests
        let candidate = url.deletingLastPathComponent().appendingPathComponent("shared/fixtures")
        return FileManager.default.fileExists(atPath: candidate.path) ? candidate : nil
    }()

    @Test("decode reads a WebP (generated here) and writes it as PNG and WebP")
    func generatedWebP() async throws {
        try await SampleTool.withTemporaryDirectory { directory in
            let catalogue = CodecCatalogue()
            TIPWebP.register(on: catalogue)
            var bitmap = try #require(Bitmap(width: 120, height: 80, format: .rgbx8))
            bitmap.setPixel(x: 3, y: 4, SIMD4(200, 10, 10, 255))
            let photo = directory.appendingPathComponent("photo.webp")
            try catalogue.encodeImage(ImageContainer(image: bitmap), toFilePath: photo.path, type: .webp, quality: 0.8)

            let png = directory.appendingPathComponent("thumb.png")
            let run = try await SampleTool.run(["decode", photo.path, "--size", "60x60", "--out", png.path])
            #expect(run.status == 0, "stderr: \(run.stderr)")
            #expect(run.stdout.contains("type: org.webmproject.webp"), "\(run.stdout)")
            #expect(run.stdout.contains("original: 120x80") && run.stdout.contains("output: 60x40"), "\(run.stdout)")
            #expect(try Data(contentsOf: png).starts(with: [0x89, 0x50, 0x4E, 0x47]))

            let webp = directory.appendingPathComponent("thumb.webp")
            let again = try await SampleTool.run(["decode", png.path, "--out", webp.path])
            #expect(again.status == 0, "stderr: \(again.stderr)")
            #expect(try catalogue.decodeImage(Data(contentsOf: webp)).type == .webp)
        }
    }

    @Test("--out with an extension no image type has is a usage error; without an extension it writes PNG")
    func outExtension() async throws {
        try await SampleTool.withTemporaryDirectory { directory in
            let bitmap = try #require(Bitmap(width: 16, height: 8, format: .rgbx8))
            let photo = directory.appendingPathComponent("photo.png")
            try CodecCatalogue.shared.encodeImage(
                ImageContainer(image: bitmap), toFilePath: photo.path, type: .png, quality: 1)
            let unknown = directory.appendingPathComponent("out.xyz")
            let refused = try await SampleTool.run(["decode", photo.path, "--out", unknown.path])
            #expect(refused.status == 64, "stderr: \(refused.stderr)")
            #expect(refused.stderr.contains("no image type has the extension .xyz"), "\(refused.stderr)")
            #expect(!FileManager.default.fileExists(atPath: unknown.path))
            let bare = directory.appendingPathComponent("out")
            let written = try await SampleTool.run(["decode", photo.path, "--out", bare.path])
            #expect(written.status == 0, "stderr: \(written.stderr)")
            #expect(try Data(contentsOf: bare).starts(with: [0x89, 0x50, 0x4E, 0x47]))
        }
    }

    @Test("decode reads the WebP fixtures", arguments: ["sample.webp", "twitterfied.webp", "tenor_test.webp"])
    func fixture(name: String) async throws {
        guard let file = Self.fixtures?.appendingPathComponent(name) else {
            print("shared/fixtures not found next to the project: fixture test skipped")
            return
        }
        let run = try await SampleTool.run(["decode", file.path, "--size", "200x200"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.contains("type: org.webmproject.webp"), "\(run.stdout)")
    }
}
