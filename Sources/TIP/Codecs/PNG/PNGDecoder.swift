import Foundation

/// Decodes PNG with libpng: every colour type and bit depth (16-bit is reduced to 8), palette, tRNS
/// and Adam7 interlacing; and animated PNG (APNG), whose frames are decoded through the same path and
/// composited here (see `APNGFrameDecoder`), since Debian's libpng has no APNG support.
///
/// ```swift
/// let image = try PNGDecoder().decode(data, options: ImageDecodingOptions())
/// ```
///
/// Output: `.gray8` for gray without transparency, `.rgba8Premultiplied` when the image has an
/// alpha channel or tRNS, otherwise `.rgbx8`. Gamma and ICC profiles are ignored (pixels pass
/// through); an eXIf orientation before the image data is applied. A truncated or damaged image
/// that decoded some rows comes back with `isPartial` and the missing rows transparent (or black
/// when opaque). Stateless: safe to call from any thread.
struct PNGDecoder: ImageDecoder {
    /// Makes a decoder.
    init() {}

    /// `.match` when `data` starts with the PNG signature, `.needMoreData` for a matching prefix
    /// of fewer than 8 bytes while more may come.
    func detect(_ data: Data, isComplete: Bool) -> ImageDecoderDetection {
        let signature = PNGChunkScanner.signature
        let prefix = data.prefix(signature.count)
        guard prefix.elementsEqual(signature.prefix(prefix.count)) else { return .noMatch }
        if prefix.count == signature.count { return .match }
        return isComplete ? .noMatch : .needMoreData
    }

    /// Decodes `data` to the options' target sizing (see ``ImageDecoder/decode(_:options:)``).
    func decode(_ data: Data, options: ImageDecodingOptions) throws(ImageDecodingError) -> ImageContainer {
        guard !data.isEmpty else { throw .emptyData }
        let result: Result<ImageContainer, ImageDecodingError> = data.withUnsafeBytes { bytes in
            do throws(ImageDecodingError) {
                return .success(try PNGDecoder.decode(bytes, options: options))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// True: contexts render rows (and interlaced passes) as they arrive, and an APNG's first frame as
    /// soon as its bytes are in.
    var supportsProgressiveDecoding: Bool { true }

    /// A context that streams rows into a canvas as bytes arrive (an APNG: complete frames).
    func makeContext(expectedLength: Int?, options: ImageDecodingOptions) -> any ImageDecoderContext {
        PNGDecoderContext(options: options)
    }

    /// Decodes a whole PNG in memory: an APNG's animation (see `APNGFrameDecoder`), else the image.
    /// `allowFastPath` false forces libpng's reader even where the one-shot ``PNGFastDecoder`` applies
    /// (tests compare the two); `allowsAnimation` false decodes an APNG's default image.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, options: ImageDecodingOptions,
        allowFastPath: Bool = true, allowsAnimation: Bool = true
    ) throws(ImageDecodingError) -> ImageContainer {
        var scanner = PNGChunkScanner()
        do {
            try scanner.scan(bytes)
        } catch {
            // Damage after the header still leaves libpng something to show.
            if scanner.header == nil { throw error }
        }
        guard let header = scanner.header else { throw .truncatedData }
        try options.checkDimensions(width: header.width, height: header.height)
        if allowsAnimation, let animation = scanner.animation, animation.isUsable,
            let image = APNGFrameDecoder.container(bytes, scanner: scanner, options: options)
        {
            return image
        }
        let end = min(scanner.endOffset ?? bytes.count, bytes.count)
        let (bitmap, isPartial) = try decodeCanvas(
            UnsafeRawBufferPointer(rebasing: bytes[0..<end]), header: header,
            hasTransparencyChunk: scanner.hasTransparencyChunk,
            isComplete: scanner.isComplete, allowFastPath: allowFastPath)
        return try finish(
            bitmap, orientation: scanner.orientation, isPartial: isPartial, options: options,
            targetDimensions: options.targetDimensions, contentMode: options.targetContentMode)
    }

    /// Decodes the image in `bytes` (a whole PNG, or as much as there is) at its own size: the
    /// one-shot fast path when it applies, else libpng's reader, whose missing rows are filled.
    static func decodeCanvas(
        _ bytes: UnsafeRawBufferPointer, header: PNGHeader, hasTransparencyChunk: Bool, isComplete: Bool,
        allowFastPath: Bool = true
    ) throws(ImageDecodingError) -> (bitmap: Bitmap, isPartial: Bool) {
        let format = header.outputFormat(hasTransparencyChunk: hasTransparencyChunk)
        if allowFastPath, isComplete, let bitmap = PNGFastDecoder.decode(bytes, header: header, format: format) {
            return (bitmap, false)
        }
        guard let reader = PNGRowReader(header: header, format: format, initializeCanvas: false) else {
            throw .unsupported("out of memory for \(header.width)x\(header.height)")
        }
        reader.feed(bytes)
        let status = reader.status
        guard let (bitmap, isWhole) = reader.image(finalizing: true) else {
            throw status.failed ? .corruptData(status.message) : .truncatedData
        }
        return (bitmap, !(isWhole && !status.failed && (status.isFinished || isComplete)))
    }

    /// Turns a decoded canvas upright and scales it to the target sizing.
    /// Throws when the scaled image would be over the options' maximum pixel count.
    static func finish(
        _ bitmap: Bitmap, orientation: ImageOrientation, isPartial: Bool, options: ImageDecodingOptions,
        targetDimensions: CGSize, contentMode: ContentMode
    ) throws(ImageDecodingError) -> ImageContainer {
        var renderOptions = options
        renderOptions.targetDimensions = targetDimensions
        renderOptions.targetContentMode = contentMode
        return try ImageContainer.decoded(
            bitmap, orientation: orientation, isPartial: isPartial, options: renderOptions)
    }
}
