import Foundation

/// The built-in processors (Nuke's `ImageProcessors`), also reachable as static members of
/// ``ImageProcessor`` (`.cropToFill()`, `.circle()`, `.gaussianBlur(sigma: 8)`...).
///
/// | TIP | Nuke |
/// |---|---|
/// | ``CropToFill`` | `ImageProcessors.Resize(size:contentMode: .aspectFill, crop: true)` |
/// | ``ResizeToFit`` | `ImageProcessors.Resize(size:contentMode: .aspectFit)` |
/// | ``RoundedCorners`` | `ImageProcessors.RoundedCorners(radius:border:)` |
/// | ``Circle`` | `ImageProcessors.Circle(border:)` |
/// | ``GaussianBlur`` | `ImageProcessors.GaussianBlur(radius:)` |
/// | ``Grayscale`` | a `CoreImageFilter("CIPhotoEffectMono")` |
/// | ``Anonymous`` | `ImageProcessors.Anonymous(id:_:)` |
///
/// Sizes, radii and widths are in pixels (a Linux image has no points).
public enum ImageProcessors {
    /// The identifier of running `processors` in order: their identifiers joined with `|`, or "" for none.
    /// A cache of processed images keys on it. A `|` or `\` inside an identifier is escaped with a `\`, so that
    /// `["a|b"]` and `["a", "b"]` get different identifiers.
    public static func identifier(of processors: [any ImageProcessor]) -> String {
        processors.map { escaped($0.identifier) }.joined(separator: "|")
    }

    /// `identifier` with a `\` before each `|` and `\` in it (the built-in processors' identifiers have none).
    static func escaped(_ identifier: String) -> String {
        guard identifier.contains(where: { $0 == "|" || $0 == "\\" }) else { return identifier }
        var result = ""
        for character in identifier {
            if character == "|" || character == "\\" { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// `size` in whole pixels (each side rounded up), or nil unless both sides are finite and positive.
    static func pixels(_ size: CGSize) -> (width: Int, height: Int)? {
        guard size.width.isFinite, size.height.isFinite, size.width > 0, size.height > 0,
            size.width <= CGFloat(Int32.max), size.height <= CGFloat(Int32.max)
        else { return nil }
        return (Int(size.width.rounded(.up)), Int(size.height.rounded(.up)))
    }

    /// The pixel size a sizing processor works to: `size` when given (which must be positive), else the
    /// context's target dimensions; throws when there is none.
    static func workingSize(_ size: CGSize?, context: ImageProcessingContext, processor: String)
        throws(ImageProcessingError) -> (width: Int, height: Int)
    {
        let pixels: (width: Int, height: Int)
        if let size {
            guard let explicit = Self.pixels(size) else {
                throw .invalidParameter(
                    processor: processor, reason: "size \(size.width)x\(size.height) must be positive and finite")
            }
            pixels = explicit
        } else {
            guard let target = context.targetPixels else { throw .missingTargetDimensions(processor: processor) }
            pixels = target
        }
        return pixels
    }

    /// Throws ``ImageProcessingError/outputTooLarge(processor:width:height:)`` when `width` x `height` is
    /// over the context's pixel limit.
    static func checkOutput(width: Int, height: Int, context: ImageProcessingContext, processor: String)
        throws(ImageProcessingError)
    {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        if overflow || pixels > context.maximumPixelCount {
            throw .outputTooLarge(processor: processor, width: width, height: height)
        }
    }

    /// A number as identifiers show it: integers without a fraction ("12"), others in their shortest exact
    /// form ("2.5").
    static func format(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
        return String(value)
    }

    /// A size as identifiers show it: "200x200", or "target" for the context's.
    static func format(_ size: CGSize?) -> String {
        guard let size else { return "target" }
        if let pixels = pixels(size) { return "\(pixels.width)x\(pixels.height)" }
        return "\(format(Double(size.width)))x\(format(Double(size.height)))"
    }
}
