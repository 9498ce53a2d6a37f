import Foundation
import TIP

/// The HEIF decoder behind ``HEIFCodec``, on libheif: HEIC (HEVC) or AVIF (AV1) still images,
/// decoded as ``HEIFDecoding`` describes. Detection reads the `ftyp` brands; files that only carry
/// structural brands (`mif1`) are claimed by both formats, and either decodes them.
///
/// Stateless and thread-safe.
struct HEIFDecoder: ImageDecoder {
    /// HEIC or AVIF.
    let format: HEIFCodec.Format

    /// `match` for an `ftyp` box whose brands are this format's (or only structural brands).
    func detect(_ data: Data, isComplete: Bool) -> ImageDecoderDetection {
        data.prefix(4096).withUnsafeBytes { HEIFContainer.detect($0, coding: format.coding, isComplete: isComplete) }
    }

    /// Decodes complete `data`.
    func decode(_ data: Data, options: ImageDecodingOptions) throws(ImageDecodingError) -> ImageContainer {
        guard !data.isEmpty else { throw .emptyData }
        guard detect(data, isComplete: true) == .match else { throw .unrecognizedFormat }
        return try data.withTypedBytes { bytes throws(ImageDecodingError) in
            try HEIFDecoding.decode(bytes, options: options)
        }
    }

    /// A ``HEIFDecoderContext``.
    func makeContext(expectedLength: Int?, options: ImageDecodingOptions) -> any ImageDecoderContext {
        HEIFDecoderContext(format: format, expectedLength: expectedLength, options: options)
    }
}
