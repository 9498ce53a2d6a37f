import CTurboJPEG
import Foundation

/// Encodes the first frame of an image as JPEG with TurboJPEG.
///
/// Quality uses TIP's 0...1 scale (see ``JPEGQualityMapping``). Baseline by default, progressive
/// with `.progressive`; grayscale for `gray8` images or with `.grayscale`; chroma 4:2:0 below
/// libjpeg quality 90 and 4:4:4 from 90. Alpha is flattened onto black (premultiplied colour
/// already is the image composited over black). Safe to call from any thread.
struct JPEGEncoder: ImageEncoder {
    func encode(_ image: ImageContainer, options: ImageEncodingOptions, quality: Float) throws(PipelineError) -> Data {
        let bitmap = image.image
        let libjpegQuality = JPEGQualityMapping.libjpegQuality(forTIPQuality: quality)
        let gray = bitmap.format == .gray8 || options.contains(.grayscale)
        let subsampling: TJSAMP = gray ? TJSAMP_GRAY : (libjpegQuality >= 90 ? TJSAMP_444 : TJSAMP_420)
        let pixelFormat: TJPF = bitmap.format == .gray8 ? TJPF_GRAY : TJPF_RGBX
        let flags: Int32 = options.contains(.progressive) ? TJFLAG_PROGRESSIVE : 0
        guard bitmap.width <= Int(Int32.max), bitmap.height <= Int(Int32.max), bitmap.bytesPerRow <= Int(Int32.max)
        else {
            throw PipelineError(.failedToInitializeImageDestination, "JPEG encode: image too large")
        }
        let pool =
            options.contains(.progressive)
            ? TurboJPEGHandlePool.progressiveCompressors : TurboJPEGHandlePool.compressors
        let outcome = pool.withHandle { handle, discard -> Result<Data, PipelineError> in
            bitmap.withUnsafeBytes { src -> Result<Data, PipelineError> in
                var buffer: UnsafeMutablePointer<UInt8>? = nil
                var size: UInt = 0
                let status = tjCompress2(
                    handle, src.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    Int32(bitmap.width), Int32(bitmap.bytesPerRow), Int32(bitmap.height),
                    Int32(pixelFormat.rawValue), &buffer, &size,
                    Int32(subsampling.rawValue), Int32(libjpegQuality), flags)
                defer { if let buffer { tjFree(buffer) } }
                guard status == 0, let buffer, size > 0 else {
                    discard = true
                    let message = tjGetErrorStr2(handle).map { String(cString: $0) } ?? "unknown error"
                    return .failure(PipelineError(.failedToFinalizeImageDestination, "JPEG encode failed: \(message)"))
                }
                return .success(Data(bytes: buffer, count: Int(size)))
            }
        }
        guard let outcome else {
            throw PipelineError(.failedToInitializeImageDestination, "TurboJPEG could not create a compressor")
        }
        return try outcome.get()
    }
}
