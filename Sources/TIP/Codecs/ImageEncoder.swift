import Foundation

/// Options for encoding (TIP's `TIPImageEncodingOptions`).
public struct ImageEncodingOptions: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int
    /// Wraps raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Progressive JPEG, interlaced (Adam7) PNG.
    public static let progressive = ImageEncodingOptions(rawValue: 1 << 0)
    /// Drop the alpha channel.
    public static let noAlpha = ImageEncodingOptions(rawValue: 1 << 1)
    /// Encode in grayscale.
    public static let grayscale = ImageEncodingOptions(rawValue: 1 << 2)
    /// Use an indexed colour palette where the format has one.
    public static let indexedColorPalette = ImageEncodingOptions(rawValue: 1 << 3)
}

/// Encodes images into one format (TIP's `TIPImageEncoder`).
///
/// ```swift
/// let jpeg = try CodecCatalogue.shared.encodeImage(container, type: .jpeg, quality: 0.85)
/// ```
public protocol ImageEncoder: Sendable {
    /// Encodes `image` (all frames when the format supports animation). `quality` is 0...1; lossless
    /// formats ignore it. Throws ``PipelineError``.
    func encode(_ image: ImageContainer, options: ImageEncodingOptions, quality: Float) throws(PipelineError) -> Data
}
