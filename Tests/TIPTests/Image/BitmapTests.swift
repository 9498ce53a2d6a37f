import Foundation
import Testing

@testable import TIP

@Suite("Bitmap and ImageContainer")
struct BitmapTests {
    @Test("Rows are 64-byte aligned and memory cost counts them", arguments: PixelFormat.allCases)
    func alignment(format: PixelFormat) {
        for width in [1, 15, 16, 17, 63, 64, 65, 1000] {
            let bitmap = Bitmap(width: width, height: 3, format: format)!
            #expect(bitmap.bytesPerRow % 64 == 0)
            #expect(bitmap.bytesPerRow >= width * format.bytesPerPixel)
            #expect(bitmap.memoryCost == bitmap.bytesPerRow * 3)
            bitmap.withUnsafeBytes { #expect(address($0) % 64 == 0) }
        }
    }

    private func address(_ p: UnsafeRawBufferPointer) -> UInt { UInt(bitPattern: p.baseAddress) }

    @Test("Invalid and overflowing sizes are refused")
    func invalidSizes() {
        #expect(Bitmap(width: 0, height: 1, format: .gray8) == nil)
        #expect(Bitmap(width: 1, height: -1, format: .gray8) == nil)
        #expect(Bitmap(width: Int.max / 2, height: 4, format: .rgba8Premultiplied) == nil)
    }

    @Test("Copy on write")
    func copyOnWrite() {
        var a = Bitmap(width: 4, height: 4, format: .rgba8Premultiplied)!
        let b = a
        a.setPixel(x: 1, y: 1, SIMD4(10, 20, 30, 255))
        #expect(a.pixel(x: 1, y: 1) == SIMD4(10, 20, 30, 255))
        #expect(b.pixel(x: 1, y: 1) == SIMD4(0, 0, 0, 0))
        #expect(a != b)
    }

    @Test("Opaque formats read as opaque; conversions round-trip")
    func formats() {
        let rgbx = Bitmap(width: 3, height: 2, format: .rgbx8)!
        #expect(rgbx.pixel(x: 2, y: 1) == SIMD4(0, 0, 0, 255))
        #expect(!rgbx.containsTransparency())
        let photo = TestImages.photo(width: 20, height: 10)
        #expect(photo.converted(to: .rgba8Premultiplied).converted(to: .rgbx8) == photo)
        let gray = photo.converted(to: .gray8)
        #expect(gray.format == .gray8 && gray.pixel(x: 0, y: 0)[3] == 255)
        #expect(TestImages.translucent(width: 8, height: 8).containsTransparency())
    }

    @Test("Every EXIF orientation maps corners correctly")
    func orientation() {
        // A 3x2 image whose pixels encode their own coordinates.
        var bitmap = Bitmap(width: 3, height: 2, format: .rgba8Premultiplied)!
        for y in 0..<2 { for x in 0..<3 { bitmap.setPixel(x: x, y: y, SIMD4(UInt8(x), UInt8(y), 0, 255)) } }
        // For each orientation: the stored pixel that must end up at the displayed top-left.
        let topLeft: [ImageOrientation: (Int, Int)] = [
            .up: (0, 0), .upMirrored: (2, 0), .down: (2, 1), .downMirrored: (0, 1),
            .leftMirrored: (0, 0), .right: (0, 1), .rightMirrored: (2, 1), .left: (2, 0),
        ]
        for orientation in ImageOrientation.allCases {
            let out = bitmap.applyingOrientation(orientation)
            #expect(out.width == (orientation.swapsDimensions ? 2 : 3))
            let (sx, sy) = topLeft[orientation]!
            #expect(out.pixel(x: 0, y: 0) == SIMD4(UInt8(sx), UInt8(sy), 0, 255), "\(orientation)")
            // Every orientation is a bijection: all six pixels survive.
            var seen = Set<[UInt8]>()
            for y in 0..<out.height {
                for x in 0..<out.width { let p = out.pixel(x: x, y: y); seen.insert([p[0], p[1]]) }
            }
            #expect(seen.count == 6)
        }
    }

    @Test("Containers: static and animated")
    func containers() {
        let frame = TestImages.solid(width: 4, height: 4, SIMD4(1, 2, 3, 255))
        let single = ImageContainer(image: frame)
        #expect(!single.isAnimated && single.frameCount == 1 && single.frameDuration(at: 0) == 0)
        let animated = ImageContainer(
            animatedFrames: [frame, frame, frame], frameDurations: [0.05, 0, .nan], loopCount: 3)!
        #expect(animated.isAnimated && animated.loopCount == 3)
        #expect(animated.frameDurations == [0.05, 0.1, 0.1])
        let mismatched = ImageContainer(animatedFrames: [frame, frame], frameDurations: [1], loopCount: 0)!
        #expect(mismatched.frameDurations == [0.1, 0.1])
        #expect(ImageContainer(animatedFrames: [], frameDurations: [], loopCount: 0) == nil)
        #expect(animated.sizeInMemory == 3 * frame.memoryCost)
        let scaled = animated.scaledToTargetDimensions(CGSize(width: 2, height: 2), contentMode: .scaleAspectFit)
        #expect(scaled.dimensions == CGSize(width: 2, height: 2) && scaled.frameDurations == animated.frameDurations)
    }
}
