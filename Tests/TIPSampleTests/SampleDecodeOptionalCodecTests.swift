import Foundation
import Testing

/// `tip-sample decode` on JPEG 2000, HEIC and AVIF files (the optional codecs it registers), run as
/// a child process.
@Suite("Sample decode: optional codecs")
struct SampleDecodeOptionalCodecTests {
    /// A committed test file of another test target.
    static func fixture(_ target: String, _ name: String) -> String {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()  // TIPSampleTests
        url.deleteLastPathComponent()  // Tests
        return url.appendingPathComponent(target).appendingPathComponent("Fixtures").appendingPathComponent(name).path
    }

    @Test(
        "decode prints the type and sizes",
        arguments: [
            ("TIPJPEG2000Tests", "large.jp2", "public.jpeg-2000", "640x480", "200x150"),
            ("TIPHEIFTests", "thumbnail.heic", "public.heic", "640x480", "200x150"),
            ("TIPHEIFTests", "rotated.avif", "public.avif", "64x96", "133x200"),
        ])
    func decode(target: String, file: String, type: String, original: String, output: String) async throws {
        let run = try await SampleTool.run(["decode", Self.fixture(target, file), "--size", "200x200"])
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(run.stdout.contains("type: \(type)"))
        #expect(run.stdout.contains("original: \(original)"))
        #expect(run.stdout.contains("output: \(output)"))
    }
}
