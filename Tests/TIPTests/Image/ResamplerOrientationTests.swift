import Testing

@testable import TIP

@Suite("Resampler: orientation")
struct ResamplerOrientationTests {
    /// The stored pixel shown at display position (x, y), straight from the EXIF definitions.
    static func storedPosition(_ orientation: ImageOrientation, x: Int, y: Int, width w: Int, height h: Int) -> (
        Int, Int
    ) {
        switch orientation {
        case .up: return (x, y)
        case .upMirrored: return (w - 1 - x, y)
        case .down: return (w - 1 - x, h - 1 - y)
        case .downMirrored: return (x, h - 1 - y)
        case .leftMirrored: return (y, x)
        case .right: return (y, h - 1 - x)
        case .rightMirrored: return (w - 1 - y, h - 1 - x)
        case .left: return (w - 1 - y, x)
        }
    }

    @Test("Every pixel lands where its EXIF orientation says", arguments: ImageOrientation.allCases)
    func everyPixel(orientation: ImageOrientation) {
        for format in PixelFormat.allCases {
            for (w, h) in [(1, 1), (5, 3), (3, 70), (70, 33), (33, 65)] {
                var image = Bitmap(width: w, height: h, format: format)!
                for y in 0..<h {
                    for x in 0..<w { image.setPixel(x: x, y: y, SIMD4(UInt8(x), UInt8(y), UInt8((x + y) % 256), 255)) }
                }
                let turned = image.applyingOrientation(orientation)
                #expect(turned.width == (orientation.swapsDimensions ? h : w))
                #expect(turned.height == (orientation.swapsDimensions ? w : h))
                var mismatches = 0
                for y in 0..<turned.height {
                    for x in 0..<turned.width {
                        let (sx, sy) = Self.storedPosition(orientation, x: x, y: y, width: w, height: h)
                        if turned.pixel(x: x, y: y) != image.pixel(x: sx, y: sy) { mismatches += 1 }
                    }
                }
                #expect(mismatches == 0, "\(format) \(w)x\(h)")
                turned.withUnsafeBytes { bytes in
                    let used = turned.width * format.bytesPerPixel
                    for y in 0..<turned.height {
                        for i in used..<turned.bytesPerRow where bytes[y * turned.bytesPerRow + i] != 0 {
                            mismatches += 1
                        }
                    }
                }
                #expect(mismatches == 0, "row padding must stay zero")
            }
        }
    }

    @Test("Orientation then its inverse gives the original back")
    func inverse() {
        let photo = TestImages.photo(width: 37, height: 21)
        let inverse: [ImageOrientation: ImageOrientation] = [
            .upMirrored: .upMirrored, .down: .down, .downMirrored: .downMirrored, .leftMirrored: .leftMirrored,
            .right: .left, .rightMirrored: .rightMirrored, .left: .right,
        ]
        #expect(photo.applyingOrientation(.up) == photo)
        for (o, back) in inverse {
            #expect(photo.applyingOrientation(o).applyingOrientation(back) == photo, "\(o)")
        }
    }
}
