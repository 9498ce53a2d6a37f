import Foundation

extension ImageProcessors {
    /// Blurs the image with a Gaussian of standard deviation `sigma` pixels, as Pillow's
    /// `ImageFilter.GaussianBlur(radius: sigma)` does (Nuke's `ImageProcessors.GaussianBlur(radius:)`).
    ///
    /// ```swift
    /// let placeholder: [any ImageProcessor] = [.resizeToFit(CGSize(width: 64, height: 64)), .gaussianBlur(sigma: 4)]
    /// ```
    ///
    /// Edge pixels repeat beyond the edge (no dark or transparent rim). Keeps the pixel format; with
    /// alpha, the premultiplied channels are blurred, so transparent pixels lend no colour. Uses a second
    /// core for large images. A sigma of 0 returns the image unchanged. Identifier: `tip.blur(8)`.
    public struct GaussianBlur: ImageProcessor {
        /// Standard deviation in pixels (≥ 0, finite).
        public var sigma: Double

        /// A blur of standard deviation `sigma` pixels.
        public init(sigma: Double) {
            self.sigma = sigma
        }

        /// `tip.blur(sigma)`.
        public var identifier: String { "tip.blur(\(ImageProcessors.format(sigma)))" }

        /// `image` blurred by `sigma` (edges repeated), in its own pixel format.
        public func process(_ image: Bitmap, context: ImageProcessingContext) throws -> Bitmap {
            guard sigma.isFinite, sigma >= 0 else {
                throw ImageProcessingError.invalidParameter(
                    processor: identifier, reason: "sigma \(sigma) must be finite and not negative")
            }
            if sigma == 0 { return image }
            return GaussianBlurRenderer.blur(image, sigma: sigma)
        }
    }
}

extension ImageProcessor where Self == ImageProcessors.GaussianBlur {
    /// A Gaussian blur of standard deviation `sigma` pixels (``ImageProcessors/GaussianBlur``).
    public static func gaussianBlur(sigma: Double) -> ImageProcessors.GaussianBlur {
        ImageProcessors.GaussianBlur(sigma: sigma)
    }
}
