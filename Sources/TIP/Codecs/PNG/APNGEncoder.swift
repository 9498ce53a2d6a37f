import Foundation

/// Writes an animated ``ImageContainer`` as an APNG, as TIP does for animated PNG: every frame is
/// encoded by libpng (``PNGEncoder``) in one colour layout, and its compressed data is moved into the
/// animation's chunks (`IDAT` for the first frame, which is also the default image, `fdAT` after).
///
/// ```swift
/// let apng = try PNGEncoder().encode(animation, options: [], quality: 1)   // animated: APNG
/// ```
///
/// - Layout: gray when every frame is `gray8` or `.grayscale` is set, with alpha when a frame has a
///   transparent pixel (and `.noAlpha` is not set); `.progressive` interlaces every frame.
/// - Every frame covers the whole canvas (`APNG_BLEND_OP_SOURCE`, `APNG_DISPOSE_OP_NONE`); frames whose
///   size differs from the first frame's are resampled to it.
/// - Delays: each frame's duration in milliseconds (in centiseconds beyond 65.535 s, at most 655.35 s).
/// - Play count: the loop count (0: forever), at most 32767 as TIP writes it (larger values keep some
///   browsers from looping at all).
struct APNGEncoder {
    /// Encodes each frame.
    let encoder: PNGEncoder

    /// The most plays written (TIP's limit).
    static let maximumPlayCount = Int(Int16.max)

    func encode(_ image: ImageContainer, options: ImageEncodingOptions) throws(PipelineError) -> Data {
        let width = image.image.width, height = image.image.height
        let frames = image.frames.map { frame in
            frame.width == width && frame.height == height
                ? frame : Resampler.resample(frame, width: width, height: height)
        }
        let layout = PNGEncoder.Layout(
            gray: options.contains(.grayscale) || frames.allSatisfy { $0.format == .gray8 },
            alpha: !options.contains(.noAlpha) && frames.contains { $0.containsTransparency() })
        var out = PNGChunkScanner.signature
        var sequence = 0
        for (index, frame) in frames.enumerated() {
            let png = try encoder.encode(frame, layout: layout, interlaced: options.contains(.progressive))
            let chunks = try APNGEncoder.chunks(of: png)
            if index == 0 {
                guard let ihdr = chunks.first(where: { $0.type == "IHDR" }) else {
                    throw PipelineError(.failedToFinalizeImageDestination, "libpng wrote no image header")
                }
                PNGChunk.append("IHDR", ihdr.data, to: &out)
                PNGChunk.append(
                    "acTL",
                    PNGChunk.bigEndian(frames.count)
                        + PNGChunk.bigEndian(min(image.loopCount, APNGEncoder.maximumPlayCount)),
                    to: &out)
            }
            let (numerator, denominator) = APNGEncoder.delay(image.frameDuration(at: index))
            var control = PNGChunk.bigEndian(sequence) + PNGChunk.bigEndian(width) + PNGChunk.bigEndian(height)
            control += PNGChunk.bigEndian(0) + PNGChunk.bigEndian(0)
            control += [
                UInt8(numerator >> 8), UInt8(numerator & 0xFF), UInt8(denominator >> 8), UInt8(denominator & 0xFF),
            ]
            control += [APNGLayout.DisposeOp.none.rawValue, APNGLayout.BlendOp.source.rawValue]
            PNGChunk.append("fcTL", control, to: &out)
            sequence += 1
            for chunk in chunks where chunk.type == "IDAT" {
                if index == 0 {
                    PNGChunk.append("IDAT", chunk.data, to: &out)
                } else {
                    PNGChunk.append("fdAT", PNGChunk.bigEndian(sequence) + chunk.data, to: &out)
                    sequence += 1
                }
            }
        }
        PNGChunk.append("IEND", [UInt8](), to: &out)
        return Data(out)
    }

    /// A frame duration as an APNG delay fraction: milliseconds, or centiseconds past 65.535 s.
    static func delay(_ seconds: TimeInterval) -> (numerator: Int, denominator: Int) {
        let milliseconds = (seconds * 1000).rounded()
        if milliseconds.isFinite, milliseconds <= 65535 { return (max(0, Int(milliseconds)), 1000) }
        let centiseconds = (seconds * 100).rounded()
        return (centiseconds.isFinite ? Int(min(65535, max(0, centiseconds))) : 65535, 100)
    }

    /// The chunks of a PNG libpng wrote (type and data).
    private static func chunks(of png: Data) throws(PipelineError) -> [(type: String, data: [UInt8])] {
        var chunks: [(type: String, data: [UInt8])] = []
        let bytes = [UInt8](png)
        var cursor = 8
        while cursor + 12 <= bytes.count {
            let length =
                Int(bytes[cursor]) << 24 | Int(bytes[cursor + 1]) << 16 | Int(bytes[cursor + 2]) << 8
                | Int(bytes[cursor + 3])
            guard cursor + 12 + length <= bytes.count else { break }
            let type = String(decoding: bytes[(cursor + 4)..<(cursor + 8)], as: UTF8.self)
            chunks.append((type, Array(bytes[(cursor + 8)..<(cursor + 8 + length)])))
            cursor += 12 + length
        }
        guard chunks.first?.type == "IHDR", chunks.last?.type == "IEND" else {
            throw PipelineError(.failedToFinalizeImageDestination, "libpng wrote an unexpected PNG")
        }
        return chunks
    }
}
