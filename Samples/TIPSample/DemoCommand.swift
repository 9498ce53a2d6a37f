import ArgumentParser
import Foundation
import TIP

/// `tip-sample demo`: makes a small corpus with the project's own encoders and decodes every image
/// straight to a target size, so a fresh machine shows the codecs working with no input files.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Encode a generated corpus (JPEG, progressive JPEG, PNG, animated GIF) and decode it to a target size."
    )

    @Option(help: "Target dimensions in pixels, WxH.")
    var size: SizeArgument = SizeArgument(argument: "400x400")!

    @Option(help: "How images fit the target size.")
    var mode: ContentModeArgument = .scaleAspectFit

    @Option(help: "Directory to write the corpus to (default: a new temporary directory).")
    var directory: String?

    func run() throws {
        let catalogue = CodecCatalogue.shared
        let dir = directory.map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("tip-sample-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let photo = DemoImages.photo(width: 1600, height: 1000)
        let frames = (0..<8).map { DemoImages.photo(width: 240, height: 160, phase: $0) }
        let entries: [(String, ImageContainer, ImageType, ImageEncodingOptions)] = [
            ("photo.jpg", ImageContainer(image: photo), .jpeg, []),
            ("photo-progressive.jpg", ImageContainer(image: photo), .jpeg, [.progressive]),
            ("photo.png", ImageContainer(image: photo), .png, []),
            ("animation.gif", ImageContainer(animatedFrames: frames, frameDurations: Array(repeating: 0.08, count: frames.count), loopCount: 0)!, .gif, []),
        ]
        var failures = 0
        for (name, container, type, options) in entries {
            let path = dir.appendingPathComponent(name).path
            do {
                try catalogue.encodeImage(container, toFilePath: path, type: type, quality: 0.85, options: options)
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                let start = DispatchTime.now().uptimeNanoseconds
                let decoded = try catalogue.decodeImage(data, options: ImageDecodingOptions(targetDimensions: size.dimensions, targetContentMode: mode.mode))
                let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                print("\(name): \(decoded.type.rawValue) \(container.image.width)x\(container.image.height) -> "
                      + "\(decoded.container.image.width)x\(decoded.container.image.height), frames: \(decoded.container.frameCount), "
                      + "\(data.count) bytes, decoded in \(String(format: "%.1f", ms)) ms")
            } catch {
                failures += 1
                var err = StandardError()
                print("\(name): error: \(error)", to: &err)
            }
        }
        print("corpus: \(dir.path)")
        if failures > 0 { throw ExitCode(1) }
    }
}

/// Generated images for the demo.
enum DemoImages {
    /// A smooth, photo-like opaque image; `phase` shifts it (for animation frames).
    static func photo(width: Int, height: Int, phase: Int = 0) -> Bitmap {
        var bitmap = Bitmap(width: width, height: height, format: .rgbx8)!
        let shift = Double(phase) * 0.125
        let stride = bitmap.bytesPerRow
        bitmap.withUnsafeMutableBytes { bytes in
            for y in 0..<height {
                let row = bytes.baseAddress! + y * stride
                for x in 0..<width {
                    let fx = Double(x) / Double(width), fy = Double(y) / Double(height)
                    let r = 127.5 + 127.5 * sin(6.28 * (fx + shift))
                    let g = 127.5 + 127.5 * cos(6.28 * (fy * 1.5 - shift))
                    let b = 255 * fx * fy
                    row.storeBytes(of: SIMD4<UInt8>(UInt8(r), UInt8(g), UInt8(b), 255), toByteOffset: x * 4, as: SIMD4<UInt8>.self)
                }
            }
        }
        return bitmap
    }
}
