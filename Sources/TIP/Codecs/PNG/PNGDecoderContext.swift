import Foundation

/// The incremental state of one PNG decode: chunk headers are scanned as bytes arrive, and when a
/// render asks for pixels, libpng's progressive reader decodes the image data received so far into a
/// canvas (resuming where it stopped), so `anyProgress` renders show every row received so far
/// (interlaced images sharpen pass by pass). Bytes that are never rendered cost no decoding: a
/// download whose partial image only reads the header, or waits for an animation's first frame, pays
/// for scanning chunk headers alone.
///
/// An APNG (an acTL chunk before the image data) is rendered by frames instead: each frame is
/// decoded once its data is complete (`APNGFrameDecoder`), so the first frame shows as soon as its
/// bytes are in, like a GIF's; `anyProgress` and `fullFrameProgress` render the complete frames so
/// far, `completeImage` only the whole animation.
///
/// Not thread-safe: use from one queue at a time (the ``ImageDecoderContext`` contract).
final class PNGDecoderContext: ImageDecoderContext {
    private(set) var data = Data()
    private let options: ImageDecodingOptions
    private var scanner = PNGChunkScanner()
    private var reader: PNGRowReader?
    /// Bytes of `data` already given to `reader`.
    private var fedCount = 0
    private var failure: ImageDecodingError?
    private var lastResult: ImageDecoderAppendResult = .didProgress
    /// An APNG's frames, decoded at canvas size as they complete.
    private var frameDecoder: APNGFrameDecoder?
    /// The last animation render, by output size, frames decoded and completeness.
    private var animationRender: (key: [Int], image: ImageContainer)?

    init(options: ImageDecodingOptions) {
        self.options = options
    }

    var dimensions: CGSize {
        guard let header = scanner.header else { return .zero }
        return scanner.orientation.swapsDimensions
            ? CGSize(width: header.height, height: header.width)
            : CGSize(width: header.width, height: header.height)
    }

    var frameCount: Int {
        if isAnimation, let animation = scanner.animation, animation.isUsable { return animation.completeFrameCount }
        return scanner.isComplete ? 1 : 0
    }
    var isProgressive: Bool { scanner.header?.isInterlaced ?? false }
    /// True once an acTL declaring more than one frame arrived (and while the animation keeps APNG's rules).
    var isAnimated: Bool { scanner.animation.map { $0.failure == nil && $0.declaredFrameCount > 1 } ?? false }

    /// Whether the image data started after an acTL: the image is rendered as an animation.
    private var isAnimation: Bool { scanner.animation != nil && scanner.imageDataOffset != nil }
    var hasAlpha: Bool {
        guard let header = scanner.header else { return false }
        return header.hasAlphaChannel || scanner.hasTransparencyChunk
    }

    func append(_ newData: Data) throws(ImageDecodingError) -> ImageDecoderAppendResult {
        if let failure { throw failure }
        data.append(newData)
        // Bytes after IEND are kept in `data` but never decoded.
        guard !newData.isEmpty, !scanner.isComplete else { return .didProgress }
        let hadHeader = scanner.header != nil
        let hadFrames = frameCount
        do {
            try process()
        } catch {
            failure = error
            throw error
        }
        var result = ImageDecoderAppendResult.didProgress
        if !hadHeader && scanner.header != nil { result = .didLoadHeaders }
        if isAnimation && frameCount > hadFrames { result = .didLoadFrame }
        if scanner.isComplete { result = .didCompleteLoading }
        lastResult = max(lastResult, result)
        return result
    }

    func finalize() throws(ImageDecodingError) -> ImageDecoderAppendResult {
        if let failure { throw failure }
        guard scanner.header != nil else { throw data.isEmpty ? .emptyData : .truncatedData }
        if !scanner.isComplete && !isAnimation {
            // The data ended early: give libpng what there is, for a clean verdict.
            do {
                try decodeReceivedRows(beforeImageData: true)
            } catch {
                failure = error
                throw error
            }
        }
        return scanner.isComplete ? .didCompleteLoading : lastResult
    }

    func render(mode: ImageDecoderRenderMode, targetDimensions: CGSize, targetContentMode: ContentMode)
        throws(ImageDecodingError) -> ImageContainer?
    {
        if let failure, reader == nil { throw failure }
        if isAnimation, let animation = scanner.animation {
            return try renderAnimation(
                animation, mode: mode, targetDimensions: targetDimensions, targetContentMode: targetContentMode)
        }
        if mode != .anyProgress && !scanner.isComplete { return nil }
        do {
            try decodeReceivedRows()
        } catch {
            // The rows decoded before the damage still render (partial).
            failure = error
            if reader == nil { throw error }
        }
        guard let reader, let (bitmap, isWhole) = reader.image(finalizing: false) else {
            if scanner.isComplete {
                let status = reader?.status
                throw status?.failed == true ? .corruptData(status?.message ?? "") : .truncatedData
            }
            return nil
        }
        let status = reader.status
        let isPartial = !(isWhole && !status.failed && scanner.isComplete)
        return try PNGDecoder.finish(
            bitmap, orientation: scanner.orientation, isPartial: isPartial, options: options,
            targetDimensions: targetDimensions, contentMode: targetContentMode)
    }

    private func process() throws(ImageDecodingError) {
        let hadHeader = scanner.header != nil
        let scanError: ImageDecodingError? = data.withUnsafeBytes { bytes in
            do throws(ImageDecodingError) {
                try scanner.scan(bytes)
                return nil
            } catch {
                return error
            }
        }
        if let scanError { throw scanError }
        if !hadHeader, let header = scanner.header {
            try options.checkDimensions(width: header.width, height: header.height)
        }
    }

    /// Decodes the image data received since the last call (a still image; an animation's frames are
    /// decoded by its renders). The canvas is made once the image data starts, or at the end when
    /// `beforeImageData` (for libpng's verdict on a file that ends before it).
    private func decodeReceivedRows(beforeImageData: Bool = false) throws(ImageDecodingError) {
        guard !isAnimation, scanner.header != nil, scanner.imageDataOffset != nil || beforeImageData else { return }
        if reader == nil {
            try startReader()
        } else {
            try feedReader()
        }
    }

    /// The complete frames so far (`completeImage`: only once the file is complete).
    private func renderAnimation(
        _ animation: APNGLayout, mode: ImageDecoderRenderMode, targetDimensions: CGSize,
        targetContentMode: ContentMode
    ) throws(ImageDecodingError) -> ImageContainer? {
        guard let header = scanner.header else { return nil }
        if mode == .completeImage && !scanner.isComplete { return nil }
        var renderOptions = options
        renderOptions.targetDimensions = targetDimensions
        renderOptions.targetContentMode = targetContentMode
        let decoder =
            frameDecoder
            ?? APNGFrameDecoder(header: header, orientation: scanner.orientation, options: options, scalesFrames: false)
        frameDecoder = decoder
        if animation.isUsable {
            let scanned = scanner
            data.withUnsafeBytes { decoder.advance($0, scanner: scanned) }
        }
        guard animation.isUsable, !(decoder.frames.isEmpty && decoder.isStopped) else {
            // The animation breaks APNG's rules, or its first frame does not decode: the default image,
            // as the specification asks, once it is all here.
            guard scanner.isComplete else { return nil }
            let still: Result<ImageContainer, ImageDecodingError> = data.withUnsafeBytes { bytes in
                do throws(ImageDecodingError) {
                    return .success(try PNGDecoder.decode(bytes, options: renderOptions, allowsAnimation: false))
                } catch {
                    return .failure(error)
                }
            }
            return try still.get()
        }
        guard !decoder.frames.isEmpty else { return nil }
        let upright =
            scanner.orientation.swapsDimensions ? (header.height, header.width) : (header.width, header.height)
        let size = try renderOptions.checkedOutputDimensions(width: upright.0, height: upright.1)
        let key = [size.width, size.height, decoder.frames.count, scanner.isComplete ? 1 : 0]
        if let animationRender, animationRender.key == key { return animationRender.image }
        guard
            let image = decoder.container(
                animation: animation, isFileComplete: scanner.isComplete,
                scaledTo: (targetDimensions, targetContentMode))
        else { return nil }
        animationRender = (key, image)
        return image
    }

    private func startReader() throws(ImageDecodingError) {
        guard let header = scanner.header else { return }
        let format = header.outputFormat(hasTransparencyChunk: scanner.hasTransparencyChunk)
        guard let made = PNGRowReader(header: header, format: format, initializeCanvas: true) else {
            throw .unsupported("out of memory for \(header.width)x\(header.height)")
        }
        reader = made
        try feedReader()
    }

    private func feedReader() throws(ImageDecodingError) {
        guard let reader else { return }
        let end = min(scanner.endOffset ?? data.count, data.count)
        guard end > fedCount else { return }
        let start = fedCount
        fedCount = end
        let ok = data.withUnsafeBytes { bytes in
            reader.feed(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
        }
        if !ok {
            throw .corruptData(reader.status.message)
        }
    }
}
