import CWebP
import TIP

/// One-shot decoding of a static WebP (lossy, lossless, with or without alpha) straight to the
/// target size: libwebp's own scaling when the output is smaller than the image, the project's
/// resampler otherwise.
enum WebPStill {
    /// Decodes the whole of `bytes`, whose header is `header`. A truncated file comes back with the
    /// rows decoded before the cut (`isPartial`); with no row at all it throws.
    static func decode(_ bytes: UnsafeRawBufferPointer, header: WebPHeader, options: ImageDecodingOptions)
        throws(ImageDecodingError) -> ImageContainer
    {
        let width = header.width, height = header.height
        try options.checkDimensions(width: width, height: height)
        guard let base = bytes.baseAddress else { throw .emptyData }
        let output = options.outputDimensions(width: width, height: height)
        let shrinks =
            output.width <= width && output.height <= height && (output.width < width || output.height < height)
        let decodeWidth = shrinks ? output.width : width, decodeHeight = shrinks ? output.height : height
        let format: PixelFormat = header.hasAlpha ? .rgba8Premultiplied : .rgbx8
        // libwebp writes every pixel byte (alpha 255 for opaque images); on any failure this bitmap is dropped.
        guard var bitmap = Bitmap(uninitializedWidth: decodeWidth, height: decodeHeight, format: format) else {
            throw .corruptData("invalid dimensions \(decodeWidth)x\(decodeHeight)")
        }
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw .unsupported("libwebp ABI mismatch") }
        config.options.use_threads = 1
        if shrinks {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(decodeWidth)
            config.options.scaled_height = Int32(decodeHeight)
        }
        config.output.colorspace = header.hasAlpha ? MODE_rgbA : MODE_RGBA
        config.output.is_external_memory = 1
        let stride = bitmap.bytesPerRow
        let status = bitmap.withUnsafeMutableBytes { pixels -> VP8StatusCode in
            guard let destination = pixels.baseAddress else { return VP8_STATUS_OUT_OF_MEMORY }
            config.output.u.RGBA.rgba = destination.assumingMemoryBound(to: UInt8.self)
            config.output.u.RGBA.stride = Int32(stride)
            config.output.u.RGBA.size = pixels.count
            return WebPDecode(base.assumingMemoryBound(to: UInt8.self), bytes.count, &config)
        }
        WebPFreeDecBuffer(&config.output)
        if status == VP8_STATUS_OK {
            return ImageContainer(image: resized(bitmap, to: output, options: options))
        }
        guard status == VP8_STATUS_NOT_ENOUGH_DATA else { throw WebPStatus.error(status, while: "decoding") }
        // Truncated: the incremental decoder shows how many rows the bytes hold.
        guard let incremental = WebPIncrementalDecoder(hasAlpha: header.hasAlpha) else {
            throw .corruptData("libwebp could not start a decoder")
        }
        let partialStatus = incremental.append(bytes)
        guard let rows = incremental.bitmap() else {
            throw incremental.hasFailed ? WebPStatus.error(partialStatus, while: "decoding") : .truncatedData
        }
        return ImageContainer(image: resized(rows, to: output, options: options), isPartial: !incremental.isComplete)
    }

    /// `bitmap` resampled to `output` unless it already has that size.
    static func resized(_ bitmap: Bitmap, to output: (width: Int, height: Int), options: ImageDecodingOptions) -> Bitmap
    {
        if bitmap.width == output.width && bitmap.height == output.height { return bitmap }
        return Resampler.resample(
            bitmap, width: output.width, height: output.height, quality: options.interpolationQuality)
    }
}
