import CWebP
import Foundation
import TIP

/// One-shot decoding of an animated WebP with libwebpdemux's `WebPAnimDecoder`, which composites
/// each frame on the canvas (alpha blending and disposal to the background as the format says).
///
/// - Durations: each frame's time from the decoder's timestamps; 10 ms or less becomes
///   ``ImageContainer/defaultFrameDuration`` (0.1 s), the rule TIP applies to GIF and WebP.
/// - Loop count: the `ANIM` chunk's value (0 = forever).
/// - Limits: the canvas is checked with `checkDimensions` before anything is allocated; decoding
///   stops with a partial image once the frames, as kept (at the output size), would exceed
///   ``totalPixelBudgetMultiple`` x `maximumPixelCount` pixels, or the canvases decoded a larger multiple
///   (TIP's `AnimationPixelBudget`).
/// - Truncated files keep the complete frames (`isPartial`); with none complete they throw.
enum WebPAnimation {
    /// How many times `maximumPixelCount` all the frames of one animation may hold together.
    static let totalPixelBudgetMultiple = AnimationPixelBudget.keptMultiple

    /// Decodes the animation in `bytes` (complete or not), at most `maximumFrames` frames.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, header: WebPHeader, options: ImageDecodingOptions,
        maximumFrames: Int = .max
    ) throws(ImageDecodingError) -> ImageContainer {
        try options.checkDimensions(width: header.width, height: header.height)
        guard let layout = WebPAnimationLayout.scan(bytes) else { throw .truncatedData }
        if layout.isComplete {
            return try decodeFrames(bytes, options: options, maximumFrames: maximumFrames, isTruncated: false)
        }
        guard layout.completeFrameCount > 0 else { throw .truncatedData }
        // Only the frames wanted: a first-frame render costs the same however much has arrived.
        let length = maximumFrames == 1 ? layout.endOfFirstCompleteFrame : layout.endOfLastCompleteFrame
        let file = WebPAnimationLayout.truncatedFile(bytes, length: length)
        return try file.withTypedBytes { raw throws(ImageDecodingError) in
            try decodeFrames(raw, options: options, maximumFrames: maximumFrames, isTruncated: true)
        }
    }

    /// Seconds a frame lasting `milliseconds` is shown (see the type's notes).
    static func duration(milliseconds: Int) -> TimeInterval {
        milliseconds <= 10 ? ImageContainer.defaultFrameDuration : TimeInterval(milliseconds) / 1000
    }

    private static func decodeFrames(
        _ file: UnsafeRawBufferPointer, options: ImageDecodingOptions, maximumFrames: Int,
        isTruncated: Bool
    ) throws(ImageDecodingError) -> ImageContainer {
        guard let base = file.baseAddress else { throw .emptyData }
        var data = WebPData(bytes: base.assumingMemoryBound(to: UInt8.self), size: file.count)
        var animationOptions = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&animationOptions) != 0 else {
            throw .unsupported("libwebpdemux ABI mismatch")
        }
        animationOptions.color_mode = MODE_rgbA
        animationOptions.use_threads = 0
        guard let decoder = WebPAnimDecoderNew(&data, &animationOptions) else {
            throw .corruptData("libwebpdemux rejected the animation")
        }
        defer { WebPAnimDecoderDelete(decoder) }
        var info = WebPAnimInfo()
        guard WebPAnimDecoderGetInfo(decoder, &info) != 0 else { throw .corruptData("no animation info") }
        let canvasWidth = Int(info.canvas_width), canvasHeight = Int(info.canvas_height)
        try options.checkDimensions(width: canvasWidth, height: canvasHeight)
        let output = options.outputDimensions(width: canvasWidth, height: canvasHeight)
        let kept = output.width * output.height
        let maximumByBudget = AnimationPixelBudget(maximumPixelCount: options.maximumPixelCount).frameCount(
            kept: kept, work: max(canvasWidth * canvasHeight, kept))
        let frameLimit = min(maximumFrames, maximumByBudget, Int(info.frame_count))

        var frames: [Bitmap] = []
        var durations: [TimeInterval] = []
        var previousTimestamp = 0
        var failed = false
        while frames.count < frameLimit, WebPAnimDecoderHasMoreFrames(decoder) != 0 {
            var canvas: UnsafeMutablePointer<UInt8>?
            var timestamp: Int32 = 0
            guard WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0, let canvas,
                var frame = Bitmap(width: canvasWidth, height: canvasHeight, format: .rgba8Premultiplied)
            else {
                failed = true
                break
            }
            let rowBytes = canvasWidth * 4, stride = frame.bytesPerRow
            frame.withUnsafeMutableBytes { pixels in
                guard let destination = pixels.baseAddress else { return }
                for y in 0..<canvasHeight {
                    (destination + y * stride).copyMemory(from: canvas + y * rowBytes, byteCount: rowBytes)
                }
            }
            frames.append(WebPStill.resized(frame, to: output, options: options))
            durations.append(duration(milliseconds: Int(timestamp) - previousTimestamp))
            previousTimestamp = Int(timestamp)
        }
        guard !frames.isEmpty else { throw .corruptData("no decodable frame") }
        let isPartial = isTruncated || failed || frames.count < Int(info.frame_count)
        guard
            let container = ImageContainer(
                animatedFrames: frames, frameDurations: durations,
                loopCount: Int(info.loop_count), isPartial: isPartial)
        else { throw .corruptData("no decodable frame") }
        return container
    }
}
