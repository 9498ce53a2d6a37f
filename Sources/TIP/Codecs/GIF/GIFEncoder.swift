import CGIF
import Foundation

/// The GIF encoder behind ``GIFCodec``, on giflib 5: one frame gives a static GIF89a, more an
/// animation with a NETSCAPE2.0 loop block.
///
/// ```swift
/// let data = try GIFCodec().encoder!.encode(container, options: [], quality: 1)
/// ```
///
/// - Colours: each frame gets its own palette from ``GIFColorQuantizer`` (exact when the frame has
///   at most 256 colours, else median cut), built from un-premultiplied colours. Pixels with alpha
///   below 128 become a reserved transparent index; the rest are written opaque.
/// - `.noAlpha` writes every pixel opaque (colours over black); `.grayscale` writes luma.
///   `quality` and the other options are ignored.
/// - Timing: each frame's delay is its duration in centiseconds, rounded, at least 2 (0.02 s).
///   A frame followed by one with transparent pixels is disposed to background (so it never
///   shows through them); other frames are kept. The loop count is written as is (0 = forever, at most 65535);
///   a loop count of 1 writes no loop block, which browsers play exactly once.
/// - Frames whose size differs from the first frame's are resampled to it.
///
/// Stateless and thread-safe. Throws ``PipelineError``.
struct GIFEncoder: ImageEncoder {
    func encode(_ image: ImageContainer, options: ImageEncodingOptions, quality: Float) throws(PipelineError) -> Data {
        let width = image.image.width, height = image.image.height
        guard width <= 65535, height <= 65535 else {
            throw PipelineError(
                .failedToInitializeImageDestination,
                "GIF images are at most 65535x65535 pixels; this one is \(width)x\(height).")
        }
        let sink = GIFMemorySink()
        var openError: Int32 = 0
        guard let gif = EGifOpen(Unmanaged.passUnretained(sink).toOpaque(), gifWriteToMemory, &openError) else {
            throw PipelineError(
                .failedToInitializeImageDestination, "giflib could not start encoding: \(gifErrorText(openError))")
        }
        var writeError: PipelineError?
        withExtendedLifetime(sink) {
            do throws(PipelineError) {
                try write(image, to: gif, options: options)
            } catch {
                writeError = error
            }
        }
        var closeError: Int32 = 0
        let closed = withExtendedLifetime(sink) { EGifCloseFile(gif, &closeError) }
        if let writeError { throw writeError }
        guard closed == GIF_OK else {
            throw PipelineError(
                .failedToFinalizeImageDestination, "giflib could not finish the GIF: \(gifErrorText(closeError))")
        }
        return sink.data
    }

    private func write(
        _ image: ImageContainer, to gif: UnsafeMutablePointer<GifFileType>, options: ImageEncodingOptions
    ) throws(PipelineError) {
        func check(_ status: Int32, _ what: String) throws(PipelineError) {
            guard status == GIF_OK else {
                throw PipelineError(
                    .failedToFinalizeImageDestination,
                    "giflib failed to write \(what): \(gifErrorText(gif.pointee.Error))")
            }
        }
        let width = image.image.width, height = image.image.height
        EGifSetGifVersion(gif, true)
        try check(EGifPutScreenDesc(gif, Int32(width), Int32(height), 8, 0, nil), "the screen descriptor")
        if image.isAnimated && image.loopCount != 1 {
            try check(EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE), "the loop block")
            var name = Array("NETSCAPE2.0".utf8)
            try check(EGifPutExtensionBlock(gif, 11, &name), "the loop block")
            let loops = min(65535, max(0, image.loopCount))
            var loop: [UInt8] = [1, UInt8(loops & 0xFF), UInt8(loops >> 8)]
            try check(EGifPutExtensionBlock(gif, 3, &loop), "the loop block")
            try check(EGifPutExtensionTrailer(gif), "the loop block")
        }

        let pixelCount = width * height
        let packed = UnsafeMutablePointer<UInt32>.allocate(capacity: pixelCount)
        defer { packed.deallocate() }
        let indices = UnsafeMutablePointer<UInt8>.allocate(capacity: pixelCount)
        defer { indices.deallocate() }

        let frames = image.frames.map { frame in
            frame.width == width && frame.height == height
                ? frame : Resampler.resample(frame, width: width, height: height)
        }
        // A frame is disposed to background when the next one has transparent pixels, so that it
        // does not show through them.
        let keepsAlpha = !options.contains(.noAlpha)
        let transparent = frames.map { keepsAlpha && GIFEncoder.hasTransparentPixels($0) }
        for (frameIndex, frame) in frames.enumerated() {
            let hasTransparency = GIFEncoder.pack(frame, into: packed, options: options)
            let disposeToBackground = frameIndex + 1 < frames.count && transparent[frameIndex + 1]
            var quantizer = GIFColorQuantizer(
                pixels: packed, count: pixelCount, maximumColors: hasTransparency ? 255 : 256)
            let transparentIndex = quantizer.palette.count
            var lastPixel = UInt32.max, lastIndex: UInt8 = 0
            for i in 0..<pixelCount {
                let p = packed[i]
                if p != lastPixel {
                    lastPixel = p
                    lastIndex =
                        p & GIFColorQuantizer.transparentBit != 0 ? UInt8(transparentIndex) : quantizer.index(of: p)
                }
                indices[i] = lastIndex
            }

            let used = transparentIndex + (hasTransparency ? 1 : 0)
            var bits = 1
            while 1 << bits < used { bits += 1 }
            var colours = [GifColorType](repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: 1 << bits)
            for (i, c) in quantizer.palette.enumerated() {
                colours[i] = GifColorType(
                    Red: UInt8(c & 0xFF), Green: UInt8(c >> 8 & 0xFF), Blue: UInt8(c >> 16 & 0xFF))
            }
            guard let map = GifMakeMapObject(Int32(1 << bits), &colours) else {
                throw PipelineError(.failedToFinalizeImageDestination, "giflib could not allocate a colour map")
            }
            defer { GifFreeMapObject(map) }

            if image.isAnimated || hasTransparency {
                var control = GraphicsControlBlock()
                control.DisposalMode =
                    image.isAnimated
                    ? (disposeToBackground ? DISPOSE_BACKGROUND : DISPOSE_DO_NOT) : DISPOSAL_UNSPECIFIED
                control.UserInputFlag = false
                control.DelayTime =
                    image.isAnimated
                    ? Int32(GIFFrameTiming.centiseconds(duration: image.frameDuration(at: frameIndex))) : 0
                control.TransparentColor = hasTransparency ? Int32(transparentIndex) : NO_TRANSPARENT_COLOR
                var extensionBytes = [GifByteType](repeating: 0, count: 4)
                let length = EGifGCBToExtension(&control, &extensionBytes)
                try check(
                    EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, Int32(length), extensionBytes),
                    "a graphics control extension")
            }
            try check(EGifPutImageDesc(gif, 0, 0, Int32(width), Int32(height), false, map), "an image descriptor")
            for y in 0..<height {
                try check(EGifPutLine(gif, indices + y * width, Int32(width)), "pixels")
            }
        }
    }

    /// Whether a pixel of `frame` has alpha below 128 (written as the transparent index).
    private static func hasTransparentPixels(_ frame: Bitmap) -> Bool {
        guard frame.format == .rgba8Premultiplied else { return false }
        let width = frame.width, height = frame.height, stride = frame.bytesPerRow
        return frame.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return false }
            for y in 0..<height {
                let row = base + y * stride
                for x in 0..<width where row[4 * x + 3] < 128 { return true }
            }
            return false
        }
    }

    /// Packs `frame` as un-premultiplied `r | g << 8 | b << 16`, with ``GIFColorQuantizer/transparentBit``
    /// for alpha < 128. Returns whether any pixel is transparent.
    private static func pack(_ frame: Bitmap, into packed: UnsafeMutablePointer<UInt32>, options: ImageEncodingOptions)
        -> Bool
    {
        let width = frame.width, height = frame.height, stride = frame.bytesPerRow, format = frame.format
        let keepAlpha = !options.contains(.noAlpha), gray = options.contains(.grayscale)
        var anyTransparent = false
        frame.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            for y in 0..<height {
                let row = base + y * stride
                let out = packed + y * width
                for x in 0..<width {
                    var r: Int, g: Int, b: Int
                    switch format {
                    case .gray8:
                        r = Int(row[x]); g = r; b = r
                    case .rgbx8:
                        r = Int(row[4 * x]); g = Int(row[4 * x + 1]); b = Int(row[4 * x + 2])
                    case .rgba8Premultiplied:
                        r = Int(row[4 * x]); g = Int(row[4 * x + 1]); b = Int(row[4 * x + 2])
                        let a = Int(row[4 * x + 3])
                        if keepAlpha {
                            if a < 128 {
                                out[x] = GIFColorQuantizer.transparentBit
                                anyTransparent = true
                                continue
                            }
                            if a < 255 {
                                r = min(255, (r * 255 + a / 2) / a)
                                g = min(255, (g * 255 + a / 2) / a)
                                b = min(255, (b * 255 + a / 2) / a)
                            }
                        }
                    }
                    if gray {
                        let luma = (299 * r + 587 * g + 114 * b + 500) / 1000
                        r = luma; g = luma; b = luma
                    }
                    out[x] = UInt32(r) | UInt32(g) << 8 | UInt32(b) << 16
                }
            }
        }
        return anyTransparent
    }
}
