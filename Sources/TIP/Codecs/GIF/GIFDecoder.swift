import Foundation

/// The GIF decoder behind ``GIFCodec``, on giflib 5: static and animated GIFs, composited on the
/// logical screen as browsers do, delivered as `rgba8Premultiplied` frames at the options' target sizing.
///
/// ```swift
/// let image = try GIFCodec().decoder.decode(data, options: ImageDecodingOptions())
/// ```
///
/// - Frame durations: the graphics control delay; delays of 0 or 1 centisecond become 0.1 s.
/// - Loop count: the NETSCAPE2.0 / ANIMEXTS1.0 value (0 = forever); 1 (play once) without one.
/// - Disposal 2 restores to transparent (not the background colour), as browsers do; disposal 3
///   restores the canvas from before the frame. Palette indices past the colour table draw nothing.
///   A frame without any colour table ends decoding (the frames before it are kept, `isPartial`).
/// - Limits: the logical screen is checked with `checkDimensions` before anything is allocated;
///   each frame rectangle must stay within `maximumPixelCount`; decoding stops with a partial image
///   once the frames as kept exceed ``GIFFrameReader/totalPixelBudgetMultiple`` x `maximumPixelCount` pixels
///   (or the frames worked through a larger multiple: ``AnimationPixelBudget``).
/// - Truncated or damaged data keeps the complete frames before the damage (`isPartial`); with no
///   complete frame it throws.
///
/// Stateless and thread-safe.
struct GIFDecoder: ImageDecoder {
    /// True: contexts render the first frame as soon as its bytes are in.
    var supportsProgressiveDecoding: Bool { true }

    /// `match` for a "GIF87a" / "GIF89a" signature.
    func detect(_ data: Data, isComplete: Bool) -> ImageDecoderDetection {
        GIFDecoder.detect(Array(data.prefix(6)), isComplete: isComplete)
    }

    /// Detection on the first (up to) 6 bytes.
    static func detect(_ head: [UInt8], isComplete: Bool) -> ImageDecoderDetection {
        for signature in [Array("GIF89a".utf8), Array("GIF87a".utf8)] {
            if head == signature { return .match }
            if head.count < 6, signature.starts(with: head) {
                return isComplete ? .noMatch : .needMoreData
            }
        }
        return .noMatch
    }

    /// Decodes all frames (see the type's notes on limits and partial data).
    func decode(_ data: Data, options: ImageDecodingOptions) throws(ImageDecodingError) -> ImageContainer {
        try GIFFrameReader.container(data, options: options)
    }

    /// A ``GIFDecoderContext``.
    func makeContext(expectedLength: Int?, options: ImageDecodingOptions) -> any ImageDecoderContext {
        GIFDecoderContext(expectedLength: expectedLength, options: options)
    }
}
