import Foundation
import Testing

@testable import TIP

@Suite("Processing: the symmetric convolution behind the blur")
struct SymmetricConvolutionTests {
    /// The convolution's own arithmetic, one sample at a time: vertical sums rounded to bytes, then
    /// horizontal sums of those, edges repeated.
    static func reference(_ bitmap: Bitmap, weights: [UInt16]) -> Bitmap {
        let channels = bitmap.format.bytesPerPixel, width = bitmap.width, height = bitmap.height,
            radius = weights.count - 1
        func sample(_ x: Int, _ y: Int, _ c: Int) -> Int {
            bitmap.withUnsafeBytes {
                Int($0[min(max(y, 0), height - 1) * bitmap.bytesPerRow + min(max(x, 0), width - 1) * channels + c])
            }
        }
        var vertical = [Int](repeating: 0, count: width * height * channels)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<channels {
                    var sum = Int(weights[0]) * sample(x, y, c) + 128
                    for k in stride(from: 1, through: radius, by: 1) {
                        sum += Int(weights[k]) * (sample(x, y - k, c) + sample(x, y + k, c))
                    }
                    vertical[(y * width + x) * channels + c] = sum >> 8
                }
            }
        }
        var out = bitmap
        let stride = bitmap.bytesPerRow
        out.withUnsafeMutableBytes { bytes in
            for y in 0..<height {
                for x in 0..<width {
                    for c in 0..<channels {
                        func v(_ x: Int) -> Int { vertical[(y * width + min(max(x, 0), width - 1)) * channels + c] }
                        var sum = Int(weights[0]) * v(x) + 128
                        for k in Swift.stride(from: 1, through: radius, by: 1) {
                            sum += Int(weights[k]) * (v(x - k) + v(x + k))
                        }
                        bytes[y * stride + x * channels + c] = UInt8(sum >> 8)
                    }
                }
            }
        }
        return out
    }

    @Test(
        """
        The SIMD sweep gives exactly the reference's bytes for every width (every 16- and 32-byte alignment), \
        format, radius and thread split
        """
    )
    func matchesReference() throws {
        for sigma in [0.4, 1, 1.5, 2.2, 3] {
            let convolution = try #require(SymmetricConvolution(kernel: GaussianBlurRenderer.kernel(sigma: sigma)))
            for format in PixelFormat.allCases {
                for width in [1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 40] {
                    let image =
                        (format == .rgba8Premultiplied
                        ? TestImages.translucent(width: width, height: 9) : TestImages.photo(width: width, height: 9))
                        .converted(to: format)
                    let expected = Self.reference(image, weights: convolution.weights)
                    for threshold in [Int.max, 0] {
                        let out = convolution.apply(to: image, parallelThreshold: threshold)
                        #expect(out == expected, "sigma \(sigma) \(format) width \(width) threshold \(threshold)")
                        // Row padding stays zero.
                        out.withUnsafeBytes { bytes in
                            for y in 0..<out.height {
                                for i in (width * format.bytesPerPixel)..<out.bytesPerRow
                                where bytes[y * out.bytesPerRow + i] != 0 {
                                    Issue.record("padding byte \(i) of row \(y) is not zero")
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @Test("Weights are 8-bit fixed point summing to 256, negligible tails dropped; long kernels are refused")
    func weights() throws {
        for sigma in [0.2, 0.5, 1, 2, 3] {
            let convolution = try #require(SymmetricConvolution(kernel: GaussianBlurRenderer.kernel(sigma: sigma)))
            let w = convolution.weights.map(Int.init)
            #expect(w[0] + 2 * w.dropFirst().reduce(0, +) == 256)
            #expect(w.dropFirst().allSatisfy { $0 > SymmetricConvolution.negligibleWeight })
            #expect(zip(w, w.dropFirst()).allSatisfy { $0 >= $1 }, "weights fall off from the centre: \(w)")
        }
        #expect(SymmetricConvolution(kernel: GaussianBlurRenderer.kernel(sigma: 8)) == nil)
        // Wide kernels whose every tap rounds to 1 or 0: dropping those would leave the centre alone.
        for sigma in [64.0, 65, 100, 500] {
            #expect(SymmetricConvolution(kernel: GaussianBlurRenderer.kernel(sigma: sigma)) == nil, "sigma \(sigma)")
        }
        #expect(try #require(SymmetricConvolution(kernel: [1])).weights == [256])
    }
}
