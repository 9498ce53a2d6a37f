import Foundation

/// TIP's target-sizing math, ported exactly: the rendered cache matches images by the equality of
/// these results, so every rounding step matters.
///
/// ```swift
/// let size = TargetSizing.dimensions(CGSize(width: 1880, height: 1253),
///                                    scaledTo: CGSize(width: 400, height: 400),
///                                    contentMode: .scaleAspectFit)   // 400 x 267
/// ```
///
/// Dimensions are pixels; sizes are points at `scale` pixels per point.
package enum TargetSizing {
    /// Whether `targetDimensions` and `contentMode` ask for resizing: both sides > 0 and finite, and a `scale*`
    /// mode.
    package static func canScale(targetDimensions: CGSize, contentMode: ContentMode) -> Bool {
        isUsableTarget(targetDimensions) && contentMode.doesScale
    }

    /// Whether two target sizings produce the same images: equal dimensions, and equal modes or two
    /// modes that both do not scale.
    package static func targetSizingsMatch(
        _ dimensions1: CGSize, _ contentMode1: ContentMode,
        _ dimensions2: CGSize, _ contentMode2: ContentMode
    ) -> Bool {
        guard dimensions1 == dimensions2 else { return false }
        return contentMode1 == contentMode2 || (!contentMode1.doesScale && !contentMode2.doesScale)
    }

    /// `dimensions` scaled to the target sizing at scale 1 (TIP's `TIPDimensionsScaledToTargetSizing`).
    /// No positive target, or a mode that does not scale, returns `dimensions` unchanged;
    /// `scaleToFill` returns the target.
    package static func dimensions(_ dimensions: CGSize, scaledTo targetDimensions: CGSize, contentMode: ContentMode)
        -> CGSize
    {
        size(dimensions, scaledTo: targetDimensions, contentMode: contentMode, scale: 1)
    }

    /// `size` scaled to the target sizing at `scale` pixels per point (TIP's `TIPSizeScaledToTargetSizing`).
    package static func size(_ size: CGSize, scaledTo targetSize: CGSize, contentMode: ContentMode, scale: CGFloat)
        -> CGSize
    {
        guard isUsableTarget(targetSize) else { return size }
        switch contentMode {
        case .scaleToFill: return targetSize
        case .scaleAspectFit: return scaleToFit(size, targetSize, scale: scale)
        case .scaleAspectFill: return scaleToFill(size, targetSize, scale: scale)
        default: return size
        }
    }

    /// Whether `size` is what scaling some image to the target sizing would produce
    /// (TIP's `TIPSizeMatchesTargetSizing`): the expectation is recomputed from `size` itself,
    /// aligned up to whole pixels, and compared. False when the target is not positive.
    package static func size(
        _ size: CGSize, matchesTargetSize targetSize: CGSize, contentMode: ContentMode, scale: CGFloat
    ) -> Bool {
        guard isUsableTarget(targetSize) else { return false }
        var expected = targetSize
        switch contentMode {
        case .scaleAspectFit: expected = scaleToFit(size, targetSize, scale: scale)
        case .scaleAspectFill: expected = scaleToFill(size, targetSize, scale: scale)
        default: break
        }
        expected = CGSize(
            width: (expected.width * scale).rounded(.up) / scale,
            height: (expected.height * scale).rounded(.up) / scale)
        return expected == size
    }

    /// Aspect-fit scaling: the anchored axis takes the (pixel-aligned) target, the other axis is
    /// rounded from the source aspect ratio. The width is anchored only when its ratio is strictly smaller.
    package static func scaleToFit(_ sourceSize: CGSize, _ targetSize: CGSize, scale: CGFloat) -> CGSize {
        anchoredScale(sourceSize, targetSize, scale: scale) { rx, ry in rx < ry }
    }

    /// Aspect-fill scaling: like ``scaleToFit(_:_:scale:)`` but the width is anchored only when its
    /// ratio is strictly larger.
    package static func scaleToFill(_ sourceSize: CGSize, _ targetSize: CGSize, scale: CGFloat) -> CGSize {
        anchoredScale(sourceSize, targetSize, scale: scale) { rx, ry in rx > ry }
    }

    /// The whole-pixel dimensions an image of `width` x `height` is delivered at for this target
    /// sizing. Each side is at least 1 (TIP's math can round a sliver image down to 0).
    package static func pixelDimensions(width: Int, height: Int, targetDimensions: CGSize, contentMode: ContentMode)
        -> (width: Int, height: Int)
    {
        guard width > 0, height > 0 else { return (max(width, 1), max(height, 1)) }
        let scaled = dimensions(
            CGSize(width: width, height: height), scaledTo: targetDimensions, contentMode: contentMode)
        return (clampToPixels(scaled.width), clampToPixels(scaled.height))
    }

    private static func clampToPixels(_ value: CGFloat) -> Int {
        guard value.isFinite else { return 1 }
        let rounded = value.rounded(.up)
        if rounded < 1 { return 1 }
        if rounded > CGFloat(Int32.max) { return Int(Int32.max) }
        return Int(rounded)
    }

    private static func anchoredScale(
        _ sourceSize: CGSize, _ targetSize: CGSize, scale: CGFloat,
        anchorWidth: (CGFloat, CGFloat) -> Bool
    ) -> CGSize {
        let target = CGSize(
            width: (targetSize.width * scale).rounded(.up), height: (targetSize.height * scale).rounded(.up))
        let source = CGSize(
            width: (sourceSize.width * scale).rounded(.up), height: (sourceSize.height * scale).rounded(.up))
        let rx = target.width / source.width
        let ry = target.height / source.height
        if anchorWidth(rx, ry) {
            let aspect = source.height / source.width
            let height = (target.width * aspect).rounded()
            return CGSize(width: target.width / scale, height: height / scale)
        } else {
            let aspect = source.width / source.height
            let width = (target.height * aspect).rounded()
            return CGSize(width: width / scale, height: target.height / scale)
        }
    }

    /// Whether both sides of a target `size` are positive and finite: only such a target is scaled to (an
    /// infinite one would otherwise round to 1x1).
    package static func isUsableTarget(_ size: CGSize) -> Bool {
        size.width > 0 && size.height > 0 && size.width.isFinite && size.height.isFinite
    }
}
