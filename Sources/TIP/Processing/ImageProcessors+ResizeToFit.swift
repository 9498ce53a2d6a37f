import Foundation

extension ImageProcessors {
    /// Scales the image to fit inside a size, keeping its aspect ratio (Nuke's
    /// `ImageProcessors.Resize(size:contentMode: .aspectFit, upscale:)`).
    ///
    /// ```swift
    /// let preview = ImageProcessors.ResizeToFit(size: CGSize(width: 1024, height: 1024))
    /// ```
    ///
    /// Uses TIP's aspect-fit sizing (as ``ImageDecodingOptions/outputDimensions(width:height:)``). An image that
    /// already fits is returned as is unless `upscale` is set. Keeps the pixel format. Identifier:
    /// `tip.fit(1024x1024)`, `tip.fit(target)` for the context's size, with `,upscale` when set.
    public struct ResizeToFit: ImageProcessor {
        /// The box to fit in, in pixels (rounded up to whole pixels), or nil for the context's target dimensions.
        public var size: CGSize?
        /// Whether a smaller image is enlarged to fit. Default false.
        public var upscale: Bool

        /// Fits into `size` (nil: the request's target dimensions), enlarging only when `upscale` is set.
        public init(size: CGSize? = nil, upscale: Bool = false) {
            self.size = size
            self.upscale = upscale
        }

        /// `tip.fit(WxH)` or `tip.fit(WxH,upscale)`.
        public var identifier: String { "tip.fit(\(ImageProcessors.format(size))\(upscale ? ",upscale" : ""))" }

        /// `image` scaled to fit the size.
        public func process(_ image: Bitmap, context: ImageProcessingContext) throws -> Bitmap {
            let (width, height) = try ImageProcessors.workingSize(size, context: context, processor: identifier)
            let fit = TargetSizing.pixelDimensions(
                width: image.width, height: image.height,
                targetDimensions: CGSize(width: width, height: height), contentMode: .scaleAspectFit)
            if fit.width == image.width && fit.height == image.height { return image }
            if !upscale && (fit.width > image.width || fit.height > image.height) { return image }
            try ImageProcessors.checkOutput(
                width: fit.width, height: fit.height, context: context, processor: identifier)
            return Resampler.resample(image, width: fit.width, height: fit.height)
        }
    }
}

extension ImageProcessor where Self == ImageProcessors.ResizeToFit {
    /// Scales to fit inside `size` (nil: the request's target dimensions), enlarging only when `upscale` is
    /// set (``ImageProcessors/ResizeToFit``).
    public static func resizeToFit(_ size: CGSize? = nil, upscale: Bool = false) -> ImageProcessors.ResizeToFit {
        ImageProcessors.ResizeToFit(size: size, upscale: upscale)
    }
}
