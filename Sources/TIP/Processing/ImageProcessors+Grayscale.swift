import Foundation

extension ImageProcessors {
    /// Replaces colour by its luma (ITU-R BT.601 weights: 0.299 red, 0.587 green, 0.114 blue, as Pillow's
    /// `convert("L")`); Nuke does this with a Core Image filter.
    ///
    /// ```swift
    /// let processors: [any ImageProcessor] = [.grayscale]
    /// ```
    ///
    /// An opaque image becomes `gray8` (a quarter of the memory); an image with alpha stays premultiplied
    /// RGBA with equal colour channels. Identifier: `tip.grayscale`.
    public struct Grayscale: ImageProcessor {
        /// The grayscale processor.
        public init() {}

        /// `tip.grayscale`.
        public var identifier: String { "tip.grayscale" }

        /// `image` in shades of gray.
        public func process(_ image: Bitmap, context: ImageProcessingContext) throws -> Bitmap {
            switch image.format {
            case .gray8:
                return image
            case .rgbx8:
                guard var out = Bitmap(uninitializedWidth: image.width, height: image.height, format: .gray8) else {
                    throw ImageProcessingError.outputTooLarge(
                        processor: identifier, width: image.width, height: image.height)
                }
                Self.map(image, into: &out) { luma, _ in UInt8(truncatingIfNeeded: luma) }
                return out
            case .rgba8Premultiplied:
                guard
                    var out = Bitmap(uninitializedWidth: image.width, height: image.height, format: .rgba8Premultiplied)
                else {
                    throw ImageProcessingError.outputTooLarge(
                        processor: identifier, width: image.width, height: image.height)
                }
                // The luma of premultiplied channels is the premultiplied luma, and never above alpha.
                Self.map(image, into: &out) { luma, alpha in
                    UInt32(luma) * 0x0001_0101 | UInt32(alpha) << 24
                }
                return out
            }
        }

        /// Writes `transform(luma, alpha)` of each 4-byte pixel of `image` into `out` (1 or 4 bytes a pixel).
        private static func map<Output>(
            _ image: Bitmap, into out: inout Bitmap, _ transform: (UInt32, UInt32) -> Output
        ) {
            let width = image.width, height = image.height
            let srcStride = image.bytesPerRow, dstStride = out.bytesPerRow
            image.withUnsafeBytes { src in
                out.withUnsafeMutableBytes { dst in
                    guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                    for y in 0..<height {
                        let row = s + y * srcStride
                        let target = (d + y * dstStride).assumingMemoryBound(to: Output.self)
                        for x in 0..<width {
                            let word = row.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self)
                            // 16-bit fixed-point weights summing to 65536.
                            let luma =
                                ((word & 0xFF) &* 19595 &+ (word >> 8 & 0xFF) &* 38470 &+ (word >> 16 & 0xFF) &* 7471
                                    &+ 32768) >> 16
                            target[x] = transform(luma, word >> 24)
                        }
                    }
                }
            }
        }
    }
}

extension ImageProcessor where Self == ImageProcessors.Grayscale {
    /// Shades of gray (``ImageProcessors/Grayscale``).
    public static var grayscale: ImageProcessors.Grayscale { ImageProcessors.Grayscale() }
}
