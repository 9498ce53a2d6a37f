import Foundation

extension ImageProcessors {
    /// Scales the image to cover a size and crops it to exactly that size (Nuke's
    /// `ImageProcessors.Resize(size:contentMode: .aspectFill, crop: true)`).
    ///
    /// ```swift
    /// let avatar = ImageProcessors.CropToFill(size: CGSize(width: 200, height: 200), anchor: .top)
    /// ```
    ///
    /// The image is scaled with TIP's aspect-fill sizing (as ``ImageDecodingOptions/outputDimensions(width:height:)``),
    /// up or down, then the `anchor` part of the size is kept; only the kept pixels are resampled (an image already at
    /// the aspect-fill size, as decoded for the request's target, is only cut). Keeps the pixel format.
    /// Identifier: `tip.crop(200x200,centre)`, or `tip.crop(target,centre)` when the size comes from the
    /// context.
    public struct CropToFill: ImageProcessor {
        /// Output size in pixels (rounded up to whole pixels), or nil for the context's target dimensions.
        public var size: CGSize?
        /// Which part is kept. Default `.center`.
        public var anchor: Anchor

        /// Crops to `size` (nil: the request's target dimensions), keeping the `anchor` part.
        public init(size: CGSize? = nil, anchor: Anchor = .center) {
            self.size = size
            self.anchor = anchor
        }

        /// `tip.crop(WxH,anchor)`.
        public var identifier: String { "tip.crop(\(ImageProcessors.format(size)),\(anchor.rawValue))" }

        /// `image` scaled to cover the size and cropped to it.
        public func process(_ image: Bitmap, context: ImageProcessingContext) throws -> Bitmap {
            let (width, height) = try ImageProcessors.workingSize(size, context: context, processor: identifier)
            try ImageProcessors.checkOutput(width: width, height: height, context: context, processor: identifier)
            let fill = TargetSizing.pixelDimensions(
                width: image.width, height: image.height,
                targetDimensions: CGSize(width: width, height: height), contentMode: .scaleAspectFill)
            let fullWidth = max(fill.width, width), fullHeight = max(fill.height, height)
            let origin = anchor.origin(width: width, height: height, fullWidth: fullWidth, fullHeight: fullHeight)
            return Resampler.resample(
                image, width: fullWidth, height: fullHeight, cropping: (origin.x, origin.y, width, height))
        }
    }
}

extension ImageProcessor where Self == ImageProcessors.CropToFill {
    /// Scales to cover `size` (nil: the request's target dimensions) and crops to it, keeping the `anchor`
    /// part (``ImageProcessors/CropToFill``).
    public static func cropToFill(_ size: CGSize? = nil, anchor: ImageProcessors.Anchor = .center)
        -> ImageProcessors.CropToFill
    {
        ImageProcessors.CropToFill(size: size, anchor: anchor)
    }
}
