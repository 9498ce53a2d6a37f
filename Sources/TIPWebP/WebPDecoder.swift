import Foundation
import TIP

/// The WebP decoder behind ``WebPCodec``, on libwebp.
///
/// - Static images decode straight to the options' target size (libwebp scales while decoding when
///   the output is smaller; larger outputs go through the project's resampler), into
///   `rgba8Premultiplied` when the bitstream has alpha, else `rgbx8`.
/// - Animations decode with ``WebPAnimation`` (composited frames, durations, loop count).
/// - The header is checked with `checkDimensions` before any pixel buffer is allocated.
/// - Truncated data keeps what is complete (rows of a static image, frames of an animation) with
///   `isPartial`; anything else unusable throws ``ImageDecodingError``.
///
/// Stateless and thread-safe.
struct WebPDecoder: ImageDecoder {
    /// True: contexts render rows of a static image and the first frame of an animation early.
    var supportsProgressiveDecoding: Bool { true }

    /// `match` for a "RIFF....WEBP" signature.
    func detect(_ data: Data, isComplete: Bool) -> ImageDecoderDetection {
        data.prefix(12).withUnsafeBytes { WebPSignature.detect($0, isComplete: isComplete) }
    }

    /// Decodes complete `data` (see the type's notes).
    func decode(_ data: Data, options: ImageDecodingOptions) throws(ImageDecodingError) -> ImageContainer {
        guard !data.isEmpty else { throw .emptyData }
        return try data.withTypedBytes { bytes throws(ImageDecodingError) in
            try WebPDecoder.decode(bytes, options: options)
        }
    }

    /// Decodes the file in `bytes`, static or animated.
    static func decode(
        _ bytes: UnsafeRawBufferPointer, options: ImageDecodingOptions,
        maximumFrames: Int = .max
    ) throws(ImageDecodingError) -> ImageContainer {
        guard let header = try WebPHeader.read(bytes) else { throw .truncatedData }
        if header.isAnimated {
            return try WebPAnimation.decode(bytes, header: header, options: options, maximumFrames: maximumFrames)
        }
        return try WebPStill.decode(bytes, header: header, options: options)
    }

    /// A ``WebPDecoderContext``.
    func makeContext(expectedLength: Int?, options: ImageDecodingOptions) -> any ImageDecoderContext {
        WebPDecoderContext(expectedLength: expectedLength, options: options)
    }
}
