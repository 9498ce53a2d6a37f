import Foundation

/// How a decode is shaped: target sizing, the decoder's own configuration and safety limits.
///
/// ```swift
/// let options = ImageDecodingOptions(
///     targetDimensions: CGSize(width: 200, height: 200), targetContentMode: .scaleAspectFill)
/// ```
public struct ImageDecodingOptions: Sendable {
    /// Pixels to decode to (zero: the image's own size). Only `scale*` modes resize.
    public var targetDimensions: CGSize
    /// How the image is fitted into `targetDimensions`. Default `.center` (no resizing).
    public var targetContentMode: ContentMode
    /// The decoder's own configuration (TIP's `decoderConfigMap` value for this type); nil by default.
    public var configuration: (any Sendable)?
    /// Images whose header claims more pixels (width x height, before any scaling) are refused
    /// with ``ImageDecodingError/dimensionsTooLarge(width:height:maximumPixelCount:)`` before any
    /// large allocation. Default ``defaultMaximumPixelCount``. A bitmap's rows are padded to 64 bytes (16
    /// pixels), so a sliver takes more memory than its pixels: an image is also refused when its padded rows
    /// would hold more than twice this many pixels (1x99,000,000 would take 6.3 GB).
    public var maximumPixelCount: Int
    /// The filter of the final resampling step. Default `.default`.
    public var interpolationQuality: InterpolationQuality
    /// For an incremental context whose caller wants only the header (dimensions, animation): the context
    /// may stop there and decode no pixels, nor allocate for them. Codecs that cannot stop early ignore it.
    /// Default false. (The downloader's header reader sets it.)
    public var readsHeaderOnly: Bool

    /// The default ``maximumPixelCount``: 100 megapixels (400 MB as RGBA).
    public static let defaultMaximumPixelCount = 100_000_000

    /// Options for a decode; every argument has the default described on its property.
    public init(
        targetDimensions: CGSize = .zero,
        targetContentMode: ContentMode = .center,
        configuration: (any Sendable)? = nil,
        maximumPixelCount: Int = ImageDecodingOptions.defaultMaximumPixelCount,
        interpolationQuality: InterpolationQuality = .default,
        readsHeaderOnly: Bool = false
    ) {
        self.targetDimensions = targetDimensions
        self.targetContentMode = targetContentMode
        self.configuration = configuration
        self.maximumPixelCount = maximumPixelCount
        self.interpolationQuality = interpolationQuality
        self.readsHeaderOnly = readsHeaderOnly
    }

    /// Throws ``ImageDecodingError/dimensionsTooLarge(width:height:maximumPixelCount:)`` when a
    /// `width` x `height` image is over ``maximumPixelCount``, or when its output at the target
    /// sizing would be (in either orientation, as EXIF may swap the sides: filling a target with a
    /// sliver image scales it up), and ``ImageDecodingError/corruptData(_:)`` when a side is not positive.
    public func checkDimensions(width: Int, height: Int) throws(ImageDecodingError) {
        guard width > 0, height > 0 else { throw .corruptData("invalid dimensions \(width)x\(height)") }
        if exceedsMaximum(width, height) {
            throw .dimensionsTooLarge(width: width, height: height, maximumPixelCount: maximumPixelCount)
        }
        _ = try checkedOutputDimensions(width: width, height: height)
        _ = try checkedOutputDimensions(width: height, height: width)
    }

    /// ``outputDimensions(width:height:)``, throwing
    /// ``ImageDecodingError/dimensionsTooLarge(width:height:maximumPixelCount:)`` when the output
    /// would be over ``maximumPixelCount``.
    public func checkedOutputDimensions(width: Int, height: Int) throws(ImageDecodingError) -> (width: Int, height: Int)
    {
        let output = outputDimensions(width: width, height: height)
        if exceedsMaximum(output.width, output.height) {
            throw .dimensionsTooLarge(width: width, height: height, maximumPixelCount: maximumPixelCount)
        }
        return output
    }

    private func exceedsMaximum(_ width: Int, _ height: Int) -> Bool {
        !Self.isWithinPixelLimit(width: width, height: height, limit: maximumPixelCount)
    }

    /// Whether a `width` x `height` image is within `limit` pixels: width x height at most `limit`, and its
    /// bitmap's padded rows (64-byte-aligned RGBA: the width rounded up to 16) at most twice as many, so that
    /// only slivers under 8 pixels wide are held to the second bound.
    static func isWithinPixelLimit(width: Int, height: Int, limit: Int) -> Bool {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= limit,
            let bytes = Bitmap.byteCount(width: width, height: height, format: .rgba8Premultiplied)
        else { return false }
        return bytes / PixelFormat.rgba8Premultiplied.bytesPerPixel / 2 <= limit
    }

    /// Whether a `width` x `height` image is within `limit` by width x height but not by its padded rows (a
    /// sliver; see ``maximumPixelCount``), for messages that say why it was refused.
    static func exceedsOnlyAsStored(width: Int, height: Int, limit: Int) -> Bool {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        return !overflow && pixels <= limit && !isWithinPixelLimit(width: width, height: height, limit: limit)
    }

    /// The whole-pixel dimensions an image of `width` x `height` is delivered at, by TIP's exact target-sizing
    /// math: `width` x `height` itself without a positive target or with a mode that does not scale, the
    /// target for `scaleToFill`; aspect fit (fill) gives the target to the side that scales least (most) and
    /// rounds the other to keep the aspect ratio. The rendered cache matches images by these results.
    public func outputDimensions(width: Int, height: Int) -> (width: Int, height: Int) {
        TargetSizing.pixelDimensions(
            width: width, height: height, targetDimensions: targetDimensions, contentMode: targetContentMode)
    }
}

/// How strongly some data looks like a decoder's format (TIP's `TIPImageDecoderDetectionResult`).
public enum ImageDecoderDetection: Int, Sendable {
    /// Not this format.
    case noMatch = -1
    /// Too few bytes to tell.
    case needMoreData = 0
    /// The data is in this decoder's format.
    case match = 1
}

/// What appending bytes to a decoder context achieved (TIP's `TIPImageDecoderAppendResult`).
public enum ImageDecoderAppendResult: Int, Sendable, Comparable {
    /// Bytes consumed; nothing new to show.
    case didProgress = 0
    /// The header is known: dimensions, type details.
    case didLoadHeaders = 1
    /// A new frame or progressive scan is complete.
    case didLoadFrame = 2
    /// The whole image has arrived.
    case didCompleteLoading = 3

    /// Orders results by how far decoding got.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// How much of a partially loaded image to render (TIP's `TIPImageDecoderRenderMode`). A context
/// renders the greediest output that does not go beyond the mode.
public enum ImageDecoderRenderMode: Int, Sendable {
    /// Everything received so far, including incomplete rows or scans.
    case anyProgress = 0
    /// Only completed frames or scans.
    case fullFrameProgress = 1
    /// Only the complete image.
    case completeImage = 2
}

/// Decodes one image format (TIP's `TIPImageDecoder`).
///
/// ```swift
/// let options = ImageDecodingOptions(
///     targetDimensions: CGSize(width: 400, height: 400), targetContentMode: .scaleAspectFit)
/// let image = try decoder.decode(data, options: options)
/// ```
///
/// Decoders are stateless and may be called from any thread; incremental state lives in the
/// ``ImageDecoderContext`` a decoder makes.
public protocol ImageDecoder: Sendable {
    /// Whether `data` (possibly a prefix) is in this decoder's format.
    func detect(_ data: Data, isComplete: Bool) -> ImageDecoderDetection

    /// Decodes complete `data` straight to the options' target sizing. A truncated image that the
    /// format can still show comes back with `isPartial` set; anything else unusable throws
    /// ``ImageDecodingError``.
    func decode(_ data: Data, options: ImageDecodingOptions) throws(ImageDecodingError) -> ImageContainer

    /// A context that takes the bytes as they arrive. `expectedLength` is the full size when known.
    func makeContext(expectedLength: Int?, options: ImageDecodingOptions) -> any ImageDecoderContext

    /// Capability signal: whether contexts of this decoder render images before all bytes arrived
    /// (progressive scans, rows, or the first animation frame). Default false.
    var supportsProgressiveDecoding: Bool { get }
}

extension ImageDecoder {
    /// Whether the decoder renders progressive scans while bytes arrive; `false` unless a decoder says otherwise.
    public var supportsProgressiveDecoding: Bool { false }
}

/// The state of one incremental decode (TIP's `TIPImageDecoderContext`).
///
/// ```swift
/// let context = decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
/// for chunk in chunks { _ = try context.append(chunk) }
/// _ = try context.finalize()
/// let image = try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center)
/// ```
///
/// Not thread-safe: use one context from one queue at a time.
public protocol ImageDecoderContext: AnyObject {
    /// Every byte appended so far.
    var data: Data { get }
    /// The image's own dimensions in pixels (orientation applied), zero until the header is read.
    var dimensions: CGSize { get }
    /// Completed frames (animations) or completed progressive scans (JPEG) so far.
    var frameCount: Int { get }
    /// Whether the image is progressive (known once the header is read).
    var isProgressive: Bool { get }
    /// Whether the image is an animation (known once a second frame or an animation header is seen).
    var isAnimated: Bool { get }
    /// Whether the image may have transparency (known once the header is read).
    var hasAlpha: Bool { get }

    /// Adds the next bytes. Throws ``ImageDecodingError`` once the data can no longer become a valid image.
    func append(_ data: Data) throws(ImageDecodingError) -> ImageDecoderAppendResult

    /// Says no more bytes will come. Returns `.didCompleteLoading` when the image is whole, or the
    /// last progress otherwise (a truncated image can still be rendered with `anyProgress`).
    func finalize() throws(ImageDecodingError) -> ImageDecoderAppendResult

    /// Renders what `mode` allows at the target sizing, or nil when there is nothing to show yet.
    func render(mode: ImageDecoderRenderMode, targetDimensions: CGSize, targetContentMode: ContentMode)
        throws(ImageDecodingError) -> ImageContainer?
}
