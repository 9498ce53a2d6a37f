import CJPEGIncremental

extension JPEGDecoder {
    /// Decodes a complete sequential (baseline) JPEG through libjpeg (`tip_jpeg_decode_sequential`) instead of
    /// TurboJPEG, byte for byte the same image: libjpeg does everything but the entropy decoding, which is TIP's
    /// (most of a baseline decode's time, above all at the reduced scales of thumbnails). Returns false (the
    /// caller then decodes with TurboJPEG) for anything else: not one interleaved sequential scan, a warning, an
    /// error, data TIP's decoder declines, other dimensions.
    static func decodeSequential(
        _ bytes: UnsafeRawBufferPointer, scale: JPEGScaleSelection, outputSpace: Int32,
        destination: UnsafeMutableRawPointer, pitch: Int
    ) -> Bool {
        decodeSequential(
            bytes, numerator: scale.numerator, denominator: scale.denominator, width: scale.scaledWidth,
            height: scale.scaledHeight, outputSpace: outputSpace, destination: destination, pitch: pitch)
    }

    /// ``decodeSequential(_:scale:outputSpace:destination:pitch:)`` at `numerator / denominator` to `width` x
    /// `height` (tests call it directly).
    static func decodeSequential(
        _ bytes: UnsafeRawBufferPointer, numerator: Int, denominator: Int, width: Int, height: Int,
        outputSpace: Int32, destination: UnsafeMutableRawPointer, pitch: Int
    ) -> Bool {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
        return tip_jpeg_decode_sequential(
            base, bytes.count, Int32(numerator), Int32(denominator), outputSpace,
            destination.assumingMemoryBound(to: UInt8.self), pitch, Int32(width), Int32(height)) == 0
    }
}
