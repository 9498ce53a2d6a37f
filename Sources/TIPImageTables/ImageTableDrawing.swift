import Foundation
import TIP

/// How a decoded source image becomes the pixels of an entry (FastImageCache's drawing block).
///
/// ```swift
/// let framed = ImageTableDrawing(sourceContentMode: .scaleAspectFit) { source, canvas in
///     canvas.fill(SIMD4(255, 255, 255, 255))
///     canvas.drawCentered(ImageTableDrawing.scaled(source, toFit: canvas.width - 4, canvas.height - 4))
/// }
/// ```
///
/// The canvas starts cleared (transparent black, opaque black, or black for gray). The source arrives upright,
/// decoded by the image pipeline at the entry's pixel size with ``sourceContentMode`` (or at the largest size
/// of the format's family, when several formats share it: draw whatever size arrives). A drawing runs on the
/// table's fill queue, one at a time per table; it must not call back into the store for the same table.
public struct ImageTableDrawing: Sendable {
    /// The content mode the source is fetched with (`.scaleAspectFill`: it covers the entry).
    public let sourceContentMode: ContentMode
    /// The drawing itself.
    let body: @Sendable (Bitmap, inout ImageTableCanvas) throws -> Void

    /// A drawing of your own; `draw` gets the decoded source and the entry's canvas.
    public init(
        sourceContentMode: ContentMode = .scaleAspectFill,
        _ draw: @escaping @Sendable (_ source: Bitmap, _ canvas: inout ImageTableCanvas) throws -> Void
    ) {
        self.sourceContentMode = sourceContentMode
        self.body = draw
    }

    /// Scales the source to cover the entry and crops the overflow evenly from both sides (centre crop).
    public static let aspectFill = ImageTableDrawing(sourceContentMode: .scaleAspectFill) { source, canvas in
        canvas.drawCentered(scaled(source, toFill: canvas.width, canvas.height))
    }

    /// Scales the source to fit inside the entry, centred on `background` (premultiplied RGBA; default
    /// transparent, which is black in opaque formats).
    public static func aspectFit(background: SIMD4<UInt8> = .zero) -> ImageTableDrawing {
        ImageTableDrawing(sourceContentMode: .scaleAspectFit) { source, canvas in
            if background != .zero { canvas.fill(background) }
            canvas.drawCentered(scaled(source, toFit: canvas.width, canvas.height))
        }
    }

    /// A drawing that renders a bitmap of its own from the source (any size; it is drawn centred, clipped
    /// to the entry). Code of your own plugs in here (``processed(by:sourceContentMode:)`` runs TIP's image
    /// processors):
    ///
    /// ```swift
    /// let inset = ImageTableDrawing.rendering { source, entrySize in
    ///     ImageTableDrawing.scaled(source, toFit: entrySize.width - 8, entrySize.height - 8)
    /// }
    /// ```
    public static func rendering(
        sourceContentMode: ContentMode = .scaleAspectFill,
        _ render: @escaping @Sendable (_ source: Bitmap, _ entrySize: (width: Int, height: Int)) throws -> Bitmap
    ) -> ImageTableDrawing {
        ImageTableDrawing(sourceContentMode: sourceContentMode) { source, canvas in
            canvas.drawCentered(try render(source, (canvas.width, canvas.height)))
        }
    }

    /// Runs TIP's image processors on the source, the entry's pixel size as their target, and draws the
    /// result centred (clipped to the entry): fill, crop and round the corners with ``ImageProcessor``s
    /// instead of drawing code of your own.
    ///
    /// ```swift
    /// let avatar = ImageTableDrawing.processed(by: [.cropToFill(), .roundedCorners(radius: 8)])
    /// ```
    ///
    /// The processors see an ``ImageProcessingContext`` whose target dimensions are the entry's size and
    /// whose content mode is `sourceContentMode`; an ``ImageProcessingError`` fails the fill with
    /// ``ImageTableError/drawingFailed(_:)``.
    public static func processed(
        by processors: [any ImageProcessor],
        sourceContentMode: ContentMode = .scaleAspectFill
    ) -> ImageTableDrawing {
        rendering(sourceContentMode: sourceContentMode) { source, entrySize in
            let context = ImageProcessingContext(
                targetDimensions: CGSize(width: entrySize.width, height: entrySize.height),
                targetContentMode: sourceContentMode)
            return try ImageContainer(image: source).processed(by: processors, context: context).image
        }
    }

    /// `bitmap` resampled so that it covers `width` x `height` with its aspect ratio kept (TIP's aspect-fill
    /// sizing); the same bitmap when it already has that size.
    public static func scaled(_ bitmap: Bitmap, toFill width: Int, _ height: Int) -> Bitmap {
        scaled(bitmap, width, height, mode: .scaleAspectFill)
    }

    /// `bitmap` resampled so that it fits inside `width` x `height` with its aspect ratio kept (TIP's
    /// aspect-fit sizing); the same bitmap when it already has that size.
    public static func scaled(_ bitmap: Bitmap, toFit width: Int, _ height: Int) -> Bitmap {
        scaled(bitmap, width, height, mode: .scaleAspectFit)
    }

    private static func scaled(_ bitmap: Bitmap, _ width: Int, _ height: Int, mode: ContentMode) -> Bitmap {
        let target = CGSize(width: max(1, width), height: max(1, height))
        let size = TargetSizing.pixelDimensions(
            width: bitmap.width, height: bitmap.height, targetDimensions: target, contentMode: mode)
        if size.width == bitmap.width && size.height == bitmap.height { return bitmap }
        return Resampler.resample(bitmap, width: size.width, height: size.height)
    }
}
