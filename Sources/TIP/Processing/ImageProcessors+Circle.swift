import Foundation

extension ImageProcessors {
    /// Crops the image to its centred square and cuts the inscribed circle out of it, antialiased, with an
    /// optional border inside the edge (Nuke's `ImageProcessors.Circle(border:)`).
    ///
    /// ```swift
    /// let avatar: [any ImageProcessor] = [.cropToFill(CGSize(width: 96, height: 96)), .circle()]
    /// ```
    ///
    /// The output is a premultiplied RGBA square, min(width, height) pixels a side, transparent outside the
    /// circle. Identifier: `tip.circle`, `tip.circle(border=2,#ffffffff)`.
    public struct Circle: ImageProcessor {
        /// The border, if any. Default none.
        public var border: Border?

        /// A circle with `border` inside its edge.
        public init(border: Border? = nil) {
            self.border = border
        }

        /// `tip.circle` or `tip.circle(border=W,#rrggbbaa)`.
        public var identifier: String { border.map { "tip.circle(\($0.identifierPart))" } ?? "tip.circle" }

        /// The circle cut out of `image`'s centred square.
        public func process(_ image: Bitmap, context: ImageProcessingContext) throws -> Bitmap {
            try border?.validate(processor: identifier)
            let side = min(image.width, image.height)
            let square = image.cropped(
                x: (image.width - side) / 2, y: (image.height - side) / 2, width: side, height: side)
            let radius = Double(side) / 2
            let mask = RoundedRectangleMask(
                width: side, height: side, radius: radius, borderWidth: min(border?.width ?? 0, radius),
                borderColor: border?.premultipliedColor ?? .zero)
            return mask.apply(to: square)
        }
    }
}

extension ImageProcessor where Self == ImageProcessors.Circle {
    /// The inscribed circle of the centred square, with an optional `border` (``ImageProcessors/Circle``).
    public static func circle(border: ImageProcessors.Border? = nil) -> ImageProcessors.Circle {
        ImageProcessors.Circle(border: border)
    }
}
