import Foundation

/// The registry of codecs by ``ImageType`` (TIP's `TIPImageCodecCatalogue`).
///
/// ```swift
/// let options = ImageDecodingOptions(
///     targetDimensions: CGSize(width: 300, height: 300), targetContentMode: .scaleAspectFill)
/// let (image, type) = try CodecCatalogue.shared.decodeImage(data, options: options)
/// CodecCatalogue.shared.removeCodec(for: .gif)
/// ```
///
/// Thread-safe: reads and writes may come from any thread. Blocks passed to
/// ``replaceCodec(for:using:)`` must not call back into the catalogue.
public final class CodecCatalogue: Sendable {
    /// The catalogue the pipeline uses unless told otherwise, loaded with ``defaultCodecs``.
    public static let shared = CodecCatalogue()

    /// The codecs available on this system: JPEG (progressive), PNG and GIF (animated), TIFF, BMP,
    /// TGA and ICO (decoding only).
    public static var defaultCodecs: [ImageType: any ImageCodec] {
        var codecs: [ImageType: any ImageCodec] = [.jpeg: JPEGCodec(), .png: PNGCodec(), .gif: GIFCodec()]
        codecs[.tiff] = TIFFCodec()
        codecs[.bmp] = BMPCodec()
        codecs[.targa] = TGACodec()
        codecs[.ico] = ICOCodec()
        return codecs
    }

    private let codecs: Locked<[ImageType: any ImageCodec]>

    /// A catalogue with ``defaultCodecs``.
    public convenience init() {
        self.init(codecs: CodecCatalogue.defaultCodecs)
    }

    /// A catalogue with exactly `codecs`.
    public init(codecs: [ImageType: any ImageCodec]) {
        self.codecs = Locked(codecs)
    }

    /// A snapshot of every registered codec.
    public var allCodecs: [ImageType: any ImageCodec] {
        codecs.withLock { $0 }
    }

    /// The codec for `type`; setting nil removes it.
    public subscript(type: ImageType) -> (any ImageCodec)? {
        get { codecs.withLock { $0[type] } }
        set { codecs.withLock { $0[type] = newValue } }
    }

    /// The codec registered for `type`, if any.
    public func codec(for type: ImageType) -> (any ImageCodec)? {
        self[type]
    }

    /// Registers `codec` for `type`, replacing any previous one.
    public func setCodec(_ codec: any ImageCodec, for type: ImageType) {
        self[type] = codec
    }

    /// Removes and returns the codec for `type`.
    @discardableResult
    public func removeCodec(for type: ImageType) -> (any ImageCodec)? {
        codecs.withLock { $0.removeValue(forKey: type) }
    }

    /// Atomically replaces the codec for `type` with what `body` returns given the current one
    /// (nil removes it). `body` runs under the catalogue's lock: it must not use the catalogue.
    public func replaceCodec(for type: ImageType, using body: (_ current: (any ImageCodec)?) -> (any ImageCodec)?) {
        codecs.withLock { codecs in
            codecs[type] = body(codecs[type])
        }
    }

    /// What the codec for `type` can do; empty when there is none.
    public func properties(for type: ImageType) -> ImageCodecProperties {
        self[type]?.properties ?? []
    }

    /// Whether some codec decodes `type`.
    public func supportsDecoding(_ type: ImageType) -> Bool { properties(for: type).contains(.decoding) }
    /// Whether some codec encodes `type`.
    public func supportsEncoding(_ type: ImageType) -> Bool { properties(for: type).contains(.encoding) }
    /// Whether the codec for `type` handles animation.
    public func supportsAnimation(_ type: ImageType) -> Bool { properties(for: type).contains(.animation) }
    /// Whether the codec for `type` renders while bytes arrive.
    public func supportsProgressiveLoading(_ type: ImageType) -> Bool { properties(for: type).contains(.progressive) }

    /// The type of `data` (which may be a prefix when `isComplete` is false): magic numbers first,
    /// then each registered decoder's own detection. Nil when nothing matches (yet).
    public func detectImageType(_ data: Data, isComplete: Bool) -> ImageType? {
        let snapshot = allCodecs
        if case .match(let type) = ImageType.detect(fromMagicNumbers: data), snapshot[type] != nil {
            return type
        }
        for (type, codec) in snapshot.sorted(by: { $0.key.rawValue < $1.key.rawValue })
        where codec.decoder.detect(data, isComplete: isComplete) == .match {
            return type
        }
        return nil
    }

    /// Decodes complete `data` straight to the options' target sizing.
    ///
    /// The codec for `imageType` (or the type the magic numbers say) is tried first, with
    /// `decoderConfigMap[type]` as its configuration when given; then every other codec whose
    /// decoder recognises the data. Throws the first codec's error when all fail,
    /// ``ImageDecodingError/missingCodec(_:)`` for a known type without a registered codec (WebP before
    /// `TIPWebP.register()`), and ``ImageDecodingError/unrecognizedFormat`` when no codec recognises the data.
    public func decodeImage(
        _ data: Data,
        options: ImageDecodingOptions = ImageDecodingOptions(),
        decoderConfigMap: [ImageType: any Sendable]? = nil,
        imageType: ImageType? = nil
    ) throws(ImageDecodingError) -> (container: ImageContainer, type: ImageType) {
        guard !data.isEmpty else { throw .emptyData }
        let snapshot = allCodecs
        var tried: [ImageType] = []
        var firstError: ImageDecodingError?
        func attempt(_ type: ImageType) -> ImageContainer? {
            guard let codec = snapshot[type], !tried.contains(type) else { return nil }
            tried.append(type)
            var typeOptions = options
            if let config = decoderConfigMap?[type] { typeOptions.configuration = config }
            do {
                return try codec.decoder.decode(data, options: typeOptions)
            } catch {
                if firstError == nil { firstError = error }
                return nil
            }
        }
        // The likely codecs first; the others' detection runs only when those fail.
        var likely: [ImageType] = []
        if let imageType { likely.append(imageType) }
        if case .match(let guessed) = ImageType.detect(fromMagicNumbers: data) { likely.append(guessed) }
        for type in likely {
            if let image = attempt(type) { return (image, type) }
        }
        for (type, codec) in snapshot.sorted(by: { $0.key.rawValue < $1.key.rawValue })
        where !tried.contains(type) && codec.decoder.detect(data, isComplete: true) == .match {
            if let image = attempt(type) { return (image, type) }
        }
        throw firstError ?? ImageDecodingError.unreadable(data, codecs: snapshot)
    }

    /// Encodes `image` as `type`. Throws ``PipelineError`` with `encodingUnsupported` when no codec
    /// encodes `type`.
    public func encodeImage(
        _ image: ImageContainer, type: ImageType, quality: Float, options: ImageEncodingOptions = []
    ) throws(PipelineError) -> Data {
        guard let encoder = self[type]?.encoder else {
            throw PipelineError(
                .encodingUnsupported, "No codec encodes \(type.rawValue); \(type.missingCodecAdvice).",
                imageType: type)
        }
        return try encoder.encode(image, options: options, quality: quality)
    }

    /// Encodes `image` as `type` into the file at `path`; with `atomic`, through a temporary file
    /// renamed into place. A symbolic link is followed (its target gets the image, the link stays), and a path
    /// that is no regular file (`/dev/stdout`, a FIFO) is written through, never replaced.
    public func encodeImage(
        _ image: ImageContainer, toFilePath path: String, type: ImageType, quality: Float,
        options: ImageEncodingOptions = [], atomic: Bool = true
    ) throws(PipelineError) {
        let data = try encodeImage(image, type: type, quality: quality, options: options)
        do {
            try EncodedFileDestination.store(data, at: path, atomic: atomic)
        } catch let error as POSIXError {
            throw PipelineError(
                .failedToFinalizeImageDestination,
                "Could not write \(path): \(String(cString: strerror(error.code.rawValue))) "
                    + "(errno \(error.code.rawValue))")
        } catch {
            throw PipelineError(
                .failedToFinalizeImageDestination, "Could not write \(path): \(error.localizedDescription)")
        }
    }

    /// TIP's choice of type when none is given: GIF for an animation, PNG when a pixel is transparent,
    /// else JPEG.
    public static func recommendedImageType(for image: ImageContainer) -> ImageType {
        if image.isAnimated { return .gif }
        return image.image.containsTransparency() ? .png : .jpeg
    }
}
