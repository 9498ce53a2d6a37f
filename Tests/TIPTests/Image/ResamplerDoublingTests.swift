import Foundation
import Testing

@testable import TIP

@Suite("Resampler: halving by 2x2 boxes and doubling")
struct ResamplerDoublingTests {
    @Test(
        "The 2x2 fast path of the box reduction averages exactly like the general path",
        arguments: [1, 2, 3, 7, 8, 9, 16, 17, 33])
    func halving(width: Int) {
        for format in PixelFormat.allCases {
            for height in [1, 2, 5, 6] {
                let image =
                    (format == .rgba8Premultiplied
                    ? TestImages.translucent(width: width, height: height)
                    : TestImages.photo(width: width, height: height)).converted(to: format)
                let out = ResamplerBoxReduction.reduce(image, factorX: 2, factorY: 2)
                #expect(out.width == (width + 1) / 2 && out.height == (height + 1) / 2)
                for y in 0..<out.height {
                    for x in 0..<out.width {
                        var sum = SIMD4<Int>(repeating: 0), n = 0
                        for sy in (2 * y)..<min(2 * y + 2, height) {
                            for sx in (2 * x)..<min(2 * x + 2, width) {
                                sum &+= SIMD4<Int>(truncatingIfNeeded: image.pixel(x: sx, y: sy))
                                n += 1
                            }
                        }
                        let expected = SIMD4<UInt8>(
                            truncatingIfNeeded: (sum &+ SIMD4(repeating: n / 2)) / SIMD4(repeating: n))
                        #expect(out.pixel(x: x, y: y) == expected, "\(format) \(width)x\(height) at (\(x), \(y))")
                    }
                }
            }
        }
    }

    @Test(
        "Doubling is linear interpolation, (a + 3b + 2) / 4 along rows then columns, edges repeated",
        arguments: [1, 2, 3, 4, 5, 8, 9, 16, 17])
    func doubling(width: Int) {
        for format in [PixelFormat.rgba8Premultiplied, .rgbx8] {
            for height in [1, 2, 3, 7] {
                let small =
                    (format == .rgba8Premultiplied
                    ? TestImages.translucent(width: width, height: height)
                    : TestImages.photo(width: width, height: height)).converted(to: format)
                for (outWidth, outHeight) in [
                    (2 * width, 2 * height), (2 * width - 1, 2 * height - 1), (2 * width, 2 * height - 1),
                ] {
                    let out = ResamplerDoubling.doubled(
                        small, width: outWidth, height: outHeight, parallelThreshold: width % 2 == 0 ? 0 : .max)
                    func mixed(_ near: SIMD4<UInt8>, _ far: SIMD4<UInt8>) -> SIMD4<UInt8> {
                        SIMD4<UInt8>(
                            truncatingIfNeeded: (SIMD4<Int>(truncatingIfNeeded: far) &+ 3
                                &* SIMD4<Int>(truncatingIfNeeded: near) &+ 2) / 4)
                    }
                    func tall(_ x: Int, _ y: Int) -> SIMD4<UInt8> {
                        let i = y / 2, far = y % 2 == 0 ? max(i - 1, 0) : min(i + 1, height - 1)
                        return mixed(small.pixel(x: x, y: i), small.pixel(x: x, y: far))
                    }
                    for y in 0..<outHeight {
                        for x in 0..<outWidth {
                            let i = x / 2, far = x % 2 == 0 ? max(i - 1, 0) : min(i + 1, width - 1)
                            #expect(
                                out.pixel(x: x, y: y) == mixed(tall(i, y), tall(far, y)),
                                "\(format) \(width)x\(height) -> \(outWidth)x\(outHeight) at (\(x), \(y))")
                        }
                    }
                    out.withUnsafeBytes { bytes in
                        for y in 0..<outHeight {
                            for i in (outWidth * 4)..<out.bytesPerRow where bytes[y * out.bytesPerRow + i] != 0 {
                                Issue.record("padding byte \(i) of row \(y) is not zero")
                            }
                        }
                    }
                }
                // Keeping only the part under the inside of a margin: the same pixels as doubling it all.
                let whole = ResamplerDoubling.doubled(
                    small, width: 2 * width, height: 2 * height, parallelThreshold: .max)
                for origin in 1...3 where 2 * origin < width && 2 * origin < height {
                    let (keptWidth, keptHeight) = (2 * (width - 2 * origin) - width % 2, 2 * (height - 2 * origin))
                    let part = ResamplerDoubling.doubled(
                        small, width: keptWidth, height: keptHeight, origin: origin, parallelThreshold: .max)
                    #expect(
                        part == whole.cropped(x: 2 * origin, y: 2 * origin, width: keptWidth, height: keptHeight),
                        "\(width)x\(height) origin \(origin)")
                }
            }
        }
    }
}
