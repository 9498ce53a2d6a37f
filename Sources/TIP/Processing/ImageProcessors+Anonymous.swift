import Foundation

extension ImageProcessors {
    /// A processor made from a closure and the identifier that names what it does (Nuke's
    /// `ImageProcessors.Anonymous(id:_:)`).
    ///
    /// ```swift
    /// let flip = ImageProcessors.Anonymous(identifier: "com.example.flip") { image, _ in
    ///     image.applyingOrientation(.upMirrored)
    /// }
    /// ```
    ///
    /// The identifier is used as given: make it change whenever the closure's output would, or cached
    /// images from an older closure are served. Errors the closure throws come back as
    /// ``ImageProcessingError/processingFailed(processor:reason:)``.
    public struct Anonymous: ImageProcessor {
        /// The identifier, as given (not empty).
        public let identifier: String
        private let body: @Sendable (Bitmap, ImageProcessingContext) throws -> Bitmap

        /// A processor named `identifier` that runs `body` on each image (each frame of an animation).
        public init(identifier: String, _ body: @escaping @Sendable (Bitmap, ImageProcessingContext) throws -> Bitmap) {
            self.identifier = identifier
            self.body = body
        }

        /// `body(image, context)`.
        public func process(_ image: Bitmap, context: ImageProcessingContext) throws -> Bitmap {
            guard !identifier.isEmpty else {
                throw ImageProcessingError.invalidParameter(
                    processor: "tip.anonymous", reason: "the identifier is empty")
            }
            return try body(image, context)
        }
    }
}

extension ImageProcessor where Self == ImageProcessors.Anonymous {
    /// A processor named `identifier` running `body` (``ImageProcessors/Anonymous``).
    public static func process(
        identifier: String, _ body: @escaping @Sendable (Bitmap, ImageProcessingContext) throws -> Bitmap
    ) -> ImageProcessors.Anonymous {
        ImageProcessors.Anonymous(identifier: identifier, body)
    }
}
