import Foundation

extension ImageProcessors {
    /// Rounds the image's corners, antialiased, with an optional border inside the edge (Nuke's
    /// `ImageProcessors.RoundedCorners(radius:unit:border:)`).
    ///
    /// ```swift
    /// let card = ImageProcessors.RoundedCorners(radius: 24, border: .init(width: 2, color: SIMD4(0, 0, 0, 255)))
    /// ```
    ///
    /// A radius larger than half the shorter side is reduced to it. The output is premultiplied RGBA
    /// (the corners are transparent); a radius of 0 without a border returns the image unchanged.
    /// Identifier: `tip.rounded(24)`, `tip.rounded(24,border=2,#000000ff)`.
    public struct RoundedCorners: ImageProcessor {
        /// Corner radius in pixels (≥ 0, finite).
        public var radius: Double
        /// The border, if any. Default none.
        public var border: Border?

        /// Corners of `radius` pixels, and `border` inside the edge.
        public init(radius: Double, border: Border? = nil) {
            self.radius = radius
            self.border = border
        }

        /// `tip.rounded(R)` or `tip.rounded(R,border=W,#rrggbbaa)`.
        public var identifier: String {
            "tip.rounded(\(ImageProcessors.format(radius))\(border.map { "," + $0.identifierPart } ?? ""))"
        }

        /// `image` with rounded corners.
        public func process(_ image: Bitmap, context: ImageProcessingContext) throws -> Bitmap {
            guard radius.isFinite, radius >= 0 else {
                throw ImageProcessingError.invalidParameter(
                    processor: identifier, reason: "radius \(radius) must be finite and not negative")
            }
            try border?.validate(processor: identifier)
            let borderWidth = border?.width ?? 0
            if radius == 0 && borderWidth == 0 { return image }
            let limit = Double(min(image.width, image.height)) / 2
            let mask = RoundedRectangleMask(
                width: image.width, height: image.height, radius: min(radius, limit),
                borderWidth: min(borderWidth, limit), borderColor: border?.premultipliedColor ?? .zero)
            return mask.apply(to: image)
        }
    }
}

extension ImageProcessor where Self == ImageProcessors.RoundedCorners {
    /// Rounds the corners with `radius` pixels, with an optional `border` (``ImageProcessors/RoundedCorners``).
    public static func roundedCorners(radius: Double, border: ImageProcessors.Border? = nil)
        -> ImageProcessors.RoundedCorners
    {
        ImageProcessors.RoundedCorners(radius: radius, border: border)
    }
}
