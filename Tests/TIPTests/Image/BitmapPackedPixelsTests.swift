import Foundation
import Testing

@testable import TIP

/// Tightly packed straight RGBA8 / RGB8 bytes out of and into a ``Bitmap``, and writing an image to a file.
@Suite("Bitmap packed pixels and writing images")
struct BitmapPackedPixelsTests {
    @Test("every premultiplied (colour, alpha) pair survives premultiplied -> straight -> premultiplied exactly")
    func exhaustiveRoundTrip() throws {
        // Pixel (x, y): colour x under alpha y where x <= y (a valid premultiplied value), else colour y.
        var bitmap = try #require(Bitmap(width: 256, height: 256, format: .rgba8Premultiplied))
        for alpha in 0..<256 {
            for colour in 0..<256 {
                let c = UInt8(min(colour, alpha))
                bitmap.setPixel(x: colour, y: alpha, SIMD4(c, UInt8(alpha - Int(c)), c / 2, UInt8(alpha)))
            }
        }
        let straight = bitmap.packedPixels(.rgba8)
        #expect(straight.count == 256 * 256 * 4)
        let back = try #require(Bitmap(packedPixels: straight, width: 256, height: 256, layout: .rgba8))
        #expect(back.format == .rgba8Premultiplied)
        #expect(back == bitmap)
        // Straight values: the premultiplied value scaled back up, rounded to nearest.
        for (colour, alpha) in [(1, 2), (100, 200), (3, 7), (254, 255), (128, 255)] {
            let offset = (alpha * 256 + colour) * 4
            let expected = UInt8(min(255, (Double(colour) * 255 / Double(alpha)).rounded()))
            #expect(straight[offset] == expected, "colour \(colour) alpha \(alpha)")
            #expect(straight[offset + 3] == UInt8(alpha))
        }
    }

    @Test("straight -> premultiplied -> straight stays within what premultiplication keeps")
    func straightRoundTrip() throws {
        var bytes: [UInt8] = []
        for alpha in 1..<256 {
            for colour in stride(from: 0, through: 255, by: 5) {
                bytes += [UInt8(colour), UInt8(255 - colour), 0, UInt8(alpha)]
            }
        }
        let count = bytes.count / 4
        let bitmap = try #require(Bitmap(packedPixels: bytes, width: count, height: 1, layout: .rgba8))
        let back = bitmap.packedPixels(.rgba8)
        for index in 0..<count {
            let alpha = Int(bytes[index * 4 + 3])
            let tolerance = 255 / (2 * alpha) + 1
            for channel in 0..<3 {
                #expect(abs(Int(back[index * 4 + channel]) - Int(bytes[index * 4 + channel])) <= tolerance)
            }
            #expect(back[index * 4 + 3] == bytes[index * 4 + 3])
            if alpha == 255 {
                #expect(Array(back[index * 4..<index * 4 + 4]) == Array(bytes[index * 4..<index * 4 + 4]))
            }
        }
    }

    @Test("RGB8 and RGBA8 are tightly packed rows; gray expands; opaque formats round-trip exactly")
    func layouts() throws {
        var rgbx = try #require(Bitmap(width: 3, height: 2, format: .rgbx8))
        rgbx.setPixel(x: 2, y: 1, SIMD4(10, 20, 30, 255))
        #expect(rgbx.bytesPerRow == 64)
        let rgb = rgbx.packedPixels(.rgb8)
        #expect(rgb.count == 3 * 2 * 3 && Array(rgb[15..<18]) == [10, 20, 30])
        #expect(Bitmap(packedPixels: rgb, width: 3, height: 2, layout: .rgb8) == rgbx)
        #expect(Array(rgbx.packedPixels(.rgba8)[20..<24]) == [10, 20, 30, 255])

        var gray = try #require(Bitmap(width: 2, height: 1, format: .gray8))
        gray.setPixel(x: 1, y: 0, SIMD4(90, 90, 90, 255))
        #expect(gray.packedPixels(.rgba8) == [0, 0, 0, 255, 90, 90, 90, 255])
        #expect(gray.packedPixels(.rgb8) == [0, 0, 0, 90, 90, 90])

        // A transparent pixel in RGB8: composited onto black.
        var clear = try #require(Bitmap(width: 1, height: 1, format: .rgba8Premultiplied))
        clear.setPixel(x: 0, y: 0, SIMD4(50, 0, 0, 100))
        #expect(clear.packedPixels(.rgb8) == [50, 0, 0])
        #expect(clear.packedPixels(.rgba8) == [128, 0, 0, 100])

        #expect(Bitmap(packedPixels: [UInt8](repeating: 0, count: 11), width: 2, height: 2, layout: .rgb8) == nil)
        #expect(Bitmap(packedPixels: [UInt8](), width: 0, height: 2, layout: .rgba8) == nil)
        #expect(Bitmap(packedPixels: Data(count: 16), width: 2, height: 2, layout: .rgba8) != nil)
        #expect(PackedPixelLayout.rgb8.bytesPerPixel == 3 && PackedPixelLayout.rgba8.bytesPerPixel == 4)
    }

    @Test("write(to:) in one call: the type from the extension, or given, or TIP's recommendation; errors typed")
    func write() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tip-write-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var bitmap = try #require(Bitmap(width: 40, height: 30, format: .rgba8Premultiplied))
        bitmap.setPixel(x: 1, y: 1, SIMD4(255, 0, 0, 255))
        let image = ImageContainer(image: bitmap)

        let png = directory.appendingPathComponent("a.png")
        try image.write(to: png)
        #expect(try CodecCatalogue.shared.decodeImage(Data(contentsOf: png)).type == .png)
        let jpeg = directory.appendingPathComponent("b.bin")
        try image.write(to: jpeg, type: .jpeg, quality: 0.8)
        #expect(try CodecCatalogue.shared.decodeImage(Data(contentsOf: jpeg)).type == .jpeg)
        let guessed = directory.appendingPathComponent("c")
        try image.write(to: guessed)  // transparent pixels: PNG
        #expect(try CodecCatalogue.shared.decodeImage(Data(contentsOf: guessed)).type == .png)

        #expect(throws: PipelineError.self) {
            try image.write(to: directory.appendingPathComponent("d.webp"), catalogue: CodecCatalogue(codecs: [:]))
        }
        do {
            try image.write(to: directory.appendingPathComponent("missing/e.png"))
            Issue.record("wrote into a missing directory")
        } catch {
            #expect(error.code == .failedToFinalizeImageDestination)
        }
    }
}
