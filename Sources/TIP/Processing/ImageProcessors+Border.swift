extension ImageProcessors {
    /// A border drawn inside the edge of a shape (``RoundedCorners``, ``Circle``), antialiased on both
    /// sides and composited over the image as a stroke is (a translucent colour shows the image through it; Nuke's
    /// `ImageProcessingOptions.Border`).
    ///
    /// ```swift
    /// let border = ImageProcessors.Border(width: 4, color: SIMD4(255, 255, 255, 255))   // opaque white
    /// ```
    public struct Border: Sendable, Equatable {
        /// Width in pixels (≥ 0, finite; 0 draws nothing).
        public var width: Double
        /// Red, green, blue, alpha, **not** premultiplied (0...255 each).
        public var color: SIMD4<UInt8>

        /// A border `width` pixels wide of `color` (straight RGBA).
        public init(width: Double, color: SIMD4<UInt8>) {
            self.width = width
            self.color = color
        }

        /// How identifiers show it: `border=4,#ffffffff`.
        var identifierPart: String {
            let hex = (0..<4).map { String(color[$0], radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }.joined()
            return "border=\(ImageProcessors.format(width)),#\(hex)"
        }

        /// `color` premultiplied, each channel rounded.
        var premultipliedColor: SIMD4<UInt8> {
            let a = Int(color[3])
            func scaled(_ c: UInt8) -> UInt8 { UInt8((Int(c) * a + 127) / 255) }
            return SIMD4(scaled(color[0]), scaled(color[1]), scaled(color[2]), color[3])
        }

        /// Throws unless the width is finite and not negative.
        func validate(processor: String) throws(ImageProcessingError) {
            guard width.isFinite, width >= 0 else {
                throw .invalidParameter(
                    processor: processor, reason: "border width \(width) must be finite and not negative")
            }
        }
    }
}
