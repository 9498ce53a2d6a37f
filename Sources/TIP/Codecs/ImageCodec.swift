import Foundation

/// What a codec can do (TIP's `TIPImageCodecProperties`).
public struct ImageCodecProperties: OptionSet, Sendable, Hashable {
    /// The raw bits.
    public let rawValue: Int
    /// Wraps raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The codec decodes: its `decoder` reads the type.
    public static let decoding = ImageCodecProperties(rawValue: 1 << 0)
    /// The codec encodes: its `encoder` is not `nil`.
    public static let encoding = ImageCodecProperties(rawValue: 1 << 1)
    /// Can decode and encode animations.
    public static let animation = ImageCodecProperties(rawValue: 1 << 2)
    /// Can render images progressively while bytes arrive.
    public static let progressive = ImageCodecProperties(rawValue: 1 << 3)
}

/// A decoder plus an optional encoder for one ``ImageType`` (TIP's `TIPImageCodec`).
///
/// ```swift
/// CodecCatalogue.shared.setCodec(MyCodec(), for: ImageType(rawValue: "public.my-type"))
/// ```
public protocol ImageCodec: Sendable {
    /// The decoder for the codec's type; every codec has one.
    var decoder: any ImageDecoder { get }
    /// The encoder, or nil for a read-only codec.
    var encoder: (any ImageEncoder)? { get }
    /// Whether this codec handles animations (decoding frames, and encoding them when it has an encoder).
    var isAnimated: Bool { get }
}

extension ImageCodec {
    /// Default: nil (read-only).
    public var encoder: (any ImageEncoder)? { nil }
    /// Whether the codec decodes and encodes animations; `false` unless a codec says otherwise.
    public var isAnimated: Bool { false }

    /// What this codec can do.
    public var properties: ImageCodecProperties {
        var properties: ImageCodecProperties = [.decoding]
        if encoder != nil { properties.insert(.encoding) }
        if isAnimated { properties.insert(.animation) }
        if decoder.supportsProgressiveDecoding { properties.insert(.progressive) }
        return properties
    }
}
