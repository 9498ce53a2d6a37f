import Foundation
import TIP

/// The JPEG 2000 decoder behind ``JPEG2000Codec``, on OpenJPEG.
///
/// - Reads JP2 files and bare codestreams, decoding only the resolution levels the options' target
///   size needs, then resampling once to the exact dimensions.
/// - The header is checked with `checkDimensions` before any pixel buffer is allocated; at most 5
///   components (gray, RGB, sYCC or CMYK, plus alpha).
/// - A truncated codestream decodes to what its bytes hold (`isPartial`) with OpenJPEG 2.5.3 or
///   later; older versions (Debian 12 ships 2.5.0) throw ``ImageDecodingError/truncatedData``, as
///   their lenient mode is not memory-safe on damaged input. Anything else unusable throws
///   ``ImageDecodingError``.
///
/// Stateless and thread-safe.
struct JPEG2000Decoder: ImageDecoder {
    /// Whether contexts render what a partial codestream holds: with OpenJPEG 2.5.3 or later.
    var supportsProgressiveDecoding: Bool { OpenJPEGVersion.allowsPartialDecoding }

    /// `match` for the JP2 signature box or a codestream's SOC + SIZ markers.
    func detect(_ data: Data, isComplete: Bool) -> ImageDecoderDetection {
        data.prefix(12).withUnsafeBytes { JPEG2000Layout.detect($0, isComplete: isComplete) }
    }

    /// Decodes complete `data` (see the type's notes).
    func decode(_ data: Data, options: ImageDecodingOptions) throws(ImageDecodingError) -> ImageContainer {
        guard !data.isEmpty else { throw .emptyData }
        return try data.withTypedBytes { bytes throws(ImageDecodingError) in
            try JPEG2000Decoding.decode(bytes, options: options)
        }
    }

    /// A ``JPEG2000DecoderContext``.
    func makeContext(expectedLength: Int?, options: ImageDecodingOptions) -> any ImageDecoderContext {
        JPEG2000DecoderContext(expectedLength: expectedLength, options: options)
    }
}
