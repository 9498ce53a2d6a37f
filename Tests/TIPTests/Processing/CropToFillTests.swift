import Foundation
import Testing

@testable import TIP

@Suite("Processing: crop to fill and resize to fit")
struct CropToFillTests {
    /// An image whose every pixel encodes its own coordinates, so a crop's origin can be read back.
    static func coordinates(width: Int, height: Int) -> Bitmap {
        var bitmap = Bitmap(width: width, height: height, format: .rgbx8)!
        for y in 0..<height { for x in 0..<width { bitmap.setPixel(x: x, y: y, SIMD4(UInt8(x), UInt8(y), 7, 255)) } }
        return bitmap
    }

    @Test(
        "An image at the aspect-fill size is only cut, at the anchor's exact offset (every anchor, odd and even excess)"
    )
    func anchorsExhaustive() throws {
        for (width, height, tw, th) in [
            (9, 4, 4, 4), (10, 4, 4, 4), (4, 9, 4, 4), (4, 10, 4, 4), (7, 7, 7, 7), (5, 3, 5, 3),
        ] {
            let image = Self.coordinates(width: width, height: height)
            for anchor in ImageProcessors.Anchor.allCases {
                let out = try ImageProcessors.CropToFill(size: CGSize(width: tw, height: th), anchor: anchor).process(
                    image, context: ImageProcessingContext())
                #expect(out.width == tw && out.height == th && out.format == .rgbx8)
                let spareX = width - tw, spareY = height - th
                let x0: Int, y0: Int
                switch anchor {
                case .center: (x0, y0) = (spareX / 2, spareY / 2)
                case .top: (x0, y0) = (spareX / 2, 0)
                case .bottom: (x0, y0) = (spareX / 2, spareY)
                case .left: (x0, y0) = (0, spareY / 2)
                case .right: (x0, y0) = (spareX, spareY / 2)
                case .topLeft: (x0, y0) = (0, 0)
                case .topRight: (x0, y0) = (spareX, 0)
                case .bottomLeft: (x0, y0) = (0, spareY)
                case .bottomRight: (x0, y0) = (spareX, spareY)
                }
                #expect(
                    out == image.cropped(x: x0, y: y0, width: tw, height: th),
                    "\(width)x\(height) -> \(tw)x\(th) \(anchor)")
            }
        }
    }

    @Test(
        "Any image and size give exactly the size, the same pixels as TIP's aspect-fill resize then the anchored crop")
    func geometryExhaustive() throws {
        for (width, height) in [(1, 1), (1, 7), (7, 1), (3, 2), (2, 3), (13, 9), (40, 17)] {
            let image = TestImages.photo(width: width, height: height)
            for (tw, th) in [(1, 1), (1, 5), (5, 1), (4, 4), (6, 3), (3, 6), (21, 20)] {
                let fill = TargetSizing.pixelDimensions(
                    width: width, height: height, targetDimensions: CGSize(width: tw, height: th),
                    contentMode: .scaleAspectFill)
                #expect(fill.width >= tw && fill.height >= th)
                let whole = Resampler.resample(image, width: fill.width, height: fill.height)
                for anchor in [ImageProcessors.Anchor.center, .bottomRight, .left] {
                    let context = ImageProcessingContext(
                        targetDimensions: CGSize(width: tw, height: th), targetContentMode: .scaleAspectFill)
                    let out = try ImageProcessors.CropToFill(anchor: anchor).process(image, context: context)
                    let origin = anchor.origin(width: tw, height: th, fullWidth: fill.width, fullHeight: fill.height)
                    #expect(
                        out == whole.cropped(x: origin.x, y: origin.y, width: tw, height: th),
                        "\(width)x\(height) -> \(tw)x\(th) \(anchor)")
                }
            }
        }
    }

    @Test("A sliver filled into a square makes only the square (no 200x66667 intermediate)")
    func sliver() throws {
        let sliver = TestImages.photo(width: 3, height: 1000)
        let out = try ImageProcessors.CropToFill(size: CGSize(width: 200, height: 200)).process(
            sliver, context: ImageProcessingContext())
        #expect(out.width == 200 && out.height == 200)
    }

    @Test("Transparency survives the crop premultiplied; gray stays gray")
    func formats() throws {
        let translucent = TestImages.translucent(width: 30, height: 20)
        let out = try ImageProcessors.CropToFill(size: CGSize(width: 10, height: 10)).process(
            translucent, context: ImageProcessingContext())
        #expect(out.format == .rgba8Premultiplied)
        for y in 0..<10 {
            for x in 0..<10 { let p = out.pixel(x: x, y: y); #expect(p[0] <= p[3] && p[1] <= p[3] && p[2] <= p[3]) }
        }
        let gray = try ImageProcessors.CropToFill(size: CGSize(width: 5, height: 5)).process(
            translucent.converted(to: .gray8), context: ImageProcessingContext())
        #expect(gray.format == .gray8 && gray.width == 5)
    }

    @Test("Fit scales within the size with TIP's rounding, never enlarges unless asked, and keeps an image that fits")
    func fit() throws {
        let photo = TestImages.photo(width: 40, height: 17)
        let context = ImageProcessingContext()
        let small = try ImageProcessors.ResizeToFit(size: CGSize(width: 20, height: 20)).process(
            photo, context: context)
        #expect(small.width == 20 && small.height == 9)
        #expect(small == Resampler.resample(photo, width: 20, height: 9))
        #expect(
            try ImageProcessors.ResizeToFit(size: CGSize(width: 100, height: 100)).process(photo, context: context)
                == photo)
        let big = try ImageProcessors.ResizeToFit(size: CGSize(width: 100, height: 100), upscale: true).process(
            photo, context: context)
        #expect(big.width == 100 && big.height == 43)
        #expect(
            try ImageProcessors.ResizeToFit(size: CGSize(width: 40, height: 40)).process(photo, context: context)
                == photo)
        let one = try ImageProcessors.ResizeToFit(size: CGSize(width: 5, height: 5), upscale: true).process(
            TestImages.photo(width: 1, height: 1), context: context)
        #expect(one.width == 5 && one.height == 5)
        let target = ImageProcessingContext(
            targetDimensions: CGSize(width: 10, height: 10), targetContentMode: .scaleAspectFit)
        #expect(try ImageProcessors.ResizeToFit().process(photo, context: target).width == 10)
    }
}
