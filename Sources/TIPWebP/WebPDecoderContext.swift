import CWebP
import Foundation
import TIP

/// Incremental WebP decoding.
///
/// - Static images go through libwebp's incremental decoder (`WebPIAppend`) at full size as bytes
///   arrive: `anyProgress` renders the rows decoded so far (`isPartial`), the complete image renders
///   exactly as a one-shot decode would.
/// - Animations: the chunk layout is followed as bytes arrive (no decoding); once the first frame
///   is complete, `anyProgress` and `fullFrameProgress` render it (`isPartial`); after `finalize`
///   on a truncated file they render every complete frame; once every byte is in, the whole
///   animation.
///
/// The last render is cached per output size and progress.
///
/// Not thread-safe: use from one queue at a time (the ``ImageDecoderContext`` contract).
final class WebPDecoderContext: ImageDecoderContext {
    /// Every byte appended so far.
    private(set) var data: Data
    private let options: ImageDecodingOptions
    private var header: WebPHeader?
    private var incremental: WebPIncrementalDecoder?
    private var layout: WebPAnimationLayout?
    private var progress = ImageDecoderAppendResult.didProgress
    private var isFinalized = false
    private var cached: (key: CacheKey, image: ImageContainer)?

    /// A render depends only on the output size and on how much was decoded.
    private struct CacheKey: Equatable {
        var width: Int
        var height: Int
        var progress: Int
        var isComplete: Bool
        var isFinalized: Bool
    }

    init(expectedLength: Int?, options: ImageDecodingOptions) {
        self.options = options
        data = Data()
        if let expectedLength, expectedLength > 0 { data.reserveCapacity(min(expectedLength, 64 << 20)) }
    }

    /// The image (or canvas) size in pixels, zero until the header arrived.
    var dimensions: CGSize { header.map { CGSize(width: $0.width, height: $0.height) } ?? .zero }
    /// Complete frames of an animation; 1 once a static image is whole.
    var frameCount: Int {
        if let layout { return layout.completeFrameCount }
        return isComplete ? 1 : 0
    }
    /// Always false: WebP has no progressive scans (rows are still rendered as they arrive).
    var isProgressive: Bool { false }
    /// True once an animation header arrived.
    var isAnimated: Bool { header?.isAnimated ?? false }
    /// True once the header arrived and says the bitstream has alpha (or is an animation).
    var hasAlpha: Bool { header.map { $0.hasAlpha || $0.isAnimated } ?? false }

    private var isComplete: Bool {
        if let layout { return layout.isComplete }
        return incremental?.isComplete ?? false
    }

    func append(_ newData: Data) throws(ImageDecodingError) -> ImageDecoderAppendResult {
        let previousCount = data.count
        data.append(newData)
        var result = ImageDecoderAppendResult.didProgress
        if header == nil {
            let parsed = try data.withTypedBytes { bytes throws(ImageDecodingError) in try WebPHeader.read(bytes) }
            guard let parsed else { return .didProgress }
            try options.checkDimensions(width: parsed.width, height: parsed.height)
            header = parsed
            result = .didLoadHeaders
            if !parsed.isAnimated {
                guard let decoder = WebPIncrementalDecoder(hasAlpha: parsed.hasAlpha) else {
                    throw .corruptData("libwebp could not start a decoder")
                }
                incremental = decoder
                // Everything so far goes in below.
            }
        }
        if let incremental {
            let start = result == .didLoadHeaders ? 0 : previousCount
            let status = data.withUnsafeBytes { incremental.append(UnsafeRawBufferPointer(rebasing: $0[start...])) }
            if incremental.hasFailed { throw WebPStatus.error(status, while: "decoding") }
            if incremental.isComplete { result = .didCompleteLoading }
        } else {
            let previousFrames = layout?.completeFrameCount ?? 0
            layout = data.withUnsafeBytes { WebPAnimationLayout.scan($0) }
            if let layout {
                if layout.isComplete {
                    result = .didCompleteLoading
                } else if layout.completeFrameCount > previousFrames {
                    result = max(result, .didLoadFrame)
                }
            }
        }
        progress = max(progress, result)
        return result
    }

    func finalize() throws(ImageDecodingError) -> ImageDecoderAppendResult {
        if data.isEmpty { throw .emptyData }
        isFinalized = true
        if isComplete { return .didCompleteLoading }
        guard header != nil else { throw .truncatedData }
        return progress
    }

    func render(mode: ImageDecoderRenderMode, targetDimensions: CGSize, targetContentMode: ContentMode)
        throws(ImageDecodingError) -> ImageContainer?
    {
        guard let header else { return nil }
        let complete = isComplete
        if mode == .completeImage && !complete { return nil }
        var renderOptions = options
        renderOptions.targetDimensions = targetDimensions
        renderOptions.targetContentMode = targetContentMode
        let output = try renderOptions.checkedOutputDimensions(width: header.width, height: header.height)
        let progressMark: Int
        if let layout {
            // Until the end, only the first frame is rendered: more frames change nothing.
            progressMark = complete || isFinalized ? layout.completeFrameCount : min(layout.completeFrameCount, 1)
        } else {
            progressMark = incremental?.decodedRows ?? 0
        }
        let key = CacheKey(
            width: output.width, height: output.height, progress: progressMark, isComplete: complete,
            isFinalized: isFinalized)
        if let cached, cached.key == key { return cached.image }

        let image: ImageContainer?
        if header.isAnimated {
            image = try renderAnimation(complete: complete, options: renderOptions)
        } else {
            image = try renderStill(
                header: header, complete: complete, mode: mode, output: output, options: renderOptions)
        }
        if let image { cached = (key, image) }
        return image
    }

    private func renderStill(
        header: WebPHeader, complete: Bool, mode: ImageDecoderRenderMode, output: (width: Int, height: Int),
        options: ImageDecodingOptions
    ) throws(ImageDecodingError) -> ImageContainer? {
        guard let incremental else { return nil }
        if complete {
            // Smaller outputs decode again with libwebp's scaling, exactly as a one-shot decode does.
            if output.width < header.width || output.height < header.height {
                return try data.withTypedBytes { bytes throws(ImageDecodingError) in
                    try WebPStill.decode(bytes, header: header, options: options)
                }
            }
            guard let bitmap = incremental.bitmap() else { return nil }
            return ImageContainer(image: WebPStill.resized(bitmap, to: output, options: options))
        }
        guard mode == .anyProgress, let bitmap = incremental.bitmap() else { return nil }
        return ImageContainer(image: WebPStill.resized(bitmap, to: output, options: options), isPartial: true)
    }

    private func renderAnimation(complete: Bool, options: ImageDecodingOptions) throws(ImageDecodingError)
        -> ImageContainer?
    {
        guard let layout, complete || layout.completeFrameCount > 0 else { return nil }
        // While bytes are still coming, only the first frame; after finalize, every complete frame.
        let maximumFrames = complete || isFinalized ? Int.max : 1
        return try data.withTypedBytes { bytes throws(ImageDecodingError) in
            try WebPDecoder.decode(bytes, options: options, maximumFrames: maximumFrames)
        }
    }
}
