import CWebP
import Foundation
import TIP

/// The WebP encoder behind ``WebPCodec``: the first frame as a static WebP, lossless when `quality`
/// ≥ ``losslessQualityThreshold``, else lossy at `quality` x 100 (alpha kept unless `.noAlpha`).
///
/// Stateless and thread-safe.
struct WebPEncoder: ImageEncoder {
    /// Qualities at or above this encode losslessly.
    static let losslessQualityThreshold: Float = 0.999

    /// Encodes the first frame of `image`. Throws ``PipelineError`` when libwebp fails.
    func encode(_ image: ImageContainer, options: ImageEncodingOptions, quality: Float) throws(PipelineError) -> Data {
        let source = image.image
        let width = source.width, height = source.height
        guard width <= Int(WEBP_MAX_DIMENSION), height <= Int(WEBP_MAX_DIMENSION) else {
            throw PipelineError(
                .failedToInitializeImageDestination,
                "WebP images are at most \(WEBP_MAX_DIMENSION) pixels a side; this one is \(width)x\(height).")
        }
        let pixels = WebPEncoder.straightRGBA(source, dropAlpha: options.contains(.noAlpha))
        let clamped = quality.isFinite ? min(max(quality, 0), 1) : 0.75
        var output: UnsafeMutablePointer<UInt8>?
        let size = pixels.withUnsafeBufferPointer { buffer -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            if clamped >= WebPEncoder.losslessQualityThreshold {
                return WebPEncodeLosslessRGBA(base, Int32(width), Int32(height), Int32(width * 4), &output)
            }
            return WebPEncodeRGBA(base, Int32(width), Int32(height), Int32(width * 4), clamped * 100, &output)
        }
        defer { WebPFree(output) }
        guard size > 0, let output else {
            throw PipelineError(
                .failedToFinalizeImageDestination, "libwebp could not encode a \(width)x\(height) image.")
        }
        return Data(bytes: output, count: size)
    }

    /// The pixels of `bitmap` as tightly packed straight (unpremultiplied) RGBA. Each colour is
    /// rounded up when unpremultiplied, so that libwebp's truncating premultiplication at decode
    /// gives back the original premultiplied value.
    static func straightRGBA(_ bitmap: Bitmap, dropAlpha: Bool) -> [UInt8] {
        let width = bitmap.width, height = bitmap.height
        let source = dropAlpha || bitmap.format == .gray8 ? bitmap.converted(to: .rgbx8) : bitmap
        let stride = source.bytesPerRow
        let premultiplied = source.format == .rgba8Premultiplied
        return [UInt8](unsafeUninitializedCapacity: width * height * 4) { buffer, count in
            source.withUnsafeBytes { raw in
                guard let base = raw.baseAddress, let out = buffer.baseAddress else { return }
                for y in 0..<height {
                    let row = (base + y * stride).assumingMemoryBound(to: UInt8.self)
                    let destination = out + y * width * 4
                    if !premultiplied {
                        for x in 0..<width {
                            destination[x * 4] = row[x * 4]
                            destination[x * 4 + 1] = row[x * 4 + 1]
                            destination[x * 4 + 2] = row[x * 4 + 2]
                            destination[x * 4 + 3] = 255
                        }
                        continue
                    }
                    for x in 0..<width {
                        let alpha = Int(row[x * 4 + 3])
                        destination[x * 4 + 3] = UInt8(alpha)
                        if alpha == 255 {
                            destination[x * 4] = row[x * 4]
                            destination[x * 4 + 1] = row[x * 4 + 1]
                            destination[x * 4 + 2] = row[x * 4 + 2]
                        } else if alpha == 0 {
                            destination[x * 4] = 0
                            destination[x * 4 + 1] = 0
                            destination[x * 4 + 2] = 0
                        } else {
                            for c in 0..<3 {
                                let value = min(Int(row[x * 4 + c]), alpha)
                                destination[x * 4 + c] = UInt8(min(255, (value * 255 + alpha - 1) / alpha))
                            }
                        }
                    }
                }
            }
            count = width * height * 4
        }
    }
}
