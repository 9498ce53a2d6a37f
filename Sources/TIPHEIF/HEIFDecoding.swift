import TIP

/// One-shot HEIF decoding (HEIC and AVIF) on libheif, straight to the target size.
///
/// - The primary image's size (as displayed) and every grid's and overlay's declared canvas are checked
///   with `checkDimensions`, and libheif's own limit refuses larger `ispe` sizes, before anything is
///   decoded.
/// - When the target is smaller than the image, the smallest embedded thumbnail that is at least as
///   large as the target (same aspect ratio, same alpha) is decoded instead of the image.
/// - libheif applies `clap`, `irot` and `imir`; alpha is premultiplied; one resampling pass gives
///   TIP's exact dimensions.
enum HEIFDecoding {
    /// What decoding `bytes` would need: the primary image and, for `options`, the image to decode.
    struct Plan {
        let file: HEIFFile
        let source: HEIFImageHandle
        let final: (width: Int, height: Int)
        /// Whether `source` is a thumbnail.
        var usesThumbnail: Bool { source !== file.primary }
    }

    /// Reads the boxes of `bytes` and chooses what to decode for `options`; no pixel work.
    static func plan(_ bytes: UnsafeRawBufferPointer, options: ImageDecodingOptions) throws(ImageDecodingError) -> Plan
    {
        // A grid or overlay states the canvas libheif allocates for it in its own data, not in `ispe`.
        // (An empty one is left to libheif, and so are the bytes of a file still arriving, padded with zeros.)
        let derived = HEIFDerivedImages(bytes)
        for size in derived.sizes where size.width > 0 && size.height > 0 {
            try options.checkDimensions(width: size.width, height: size.height)
        }
        if derived.hasReferenceCycle {
            throw .corruptData("an image of the file refers back to itself (through its tiles or its alpha)")
        }
        let file = try HEIFFile(bytes, maximumSide: options.maximumPixelCount)
        let primary = file.primary
        try options.checkDimensions(width: primary.width, height: primary.height)
        if primary.codedWidth > 0 && primary.codedHeight > 0 {
            try options.checkDimensions(width: primary.codedWidth, height: primary.codedHeight)
        }
        let final = options.outputDimensions(width: primary.width, height: primary.height)
        var source = primary
        if final.width < primary.width || final.height < primary.height {
            let candidates = primary.thumbnails().filter { thumbnail in
                thumbnail.width >= final.width && thumbnail.height >= final.height
                    && thumbnail.width < primary.width && thumbnail.hasAlpha == primary.hasAlpha
                    // Same aspect ratio, give or take rounding (writers round thumbnails to even sizes).
                    && abs(thumbnail.width * primary.height - thumbnail.height * primary.width) <= 2
                        * max(primary.width, primary.height)
            }
            if let smallest = candidates.min(by: { $0.width * $0.height < $1.width * $1.height }) { source = smallest }
        }
        return Plan(file: file, source: source, final: final)
    }

    /// Decodes the HEIF file in `bytes`.
    static func decode(_ bytes: UnsafeRawBufferPointer, options: ImageDecodingOptions) throws(ImageDecodingError)
        -> ImageContainer
    {
        guard !bytes.isEmpty else { throw .emptyData }
        let plan = try plan(bytes, options: options)
        let bitmap: Bitmap
        do {
            bitmap = try plan.source.decode()
        } catch  where plan.usesThumbnail {
            // A damaged thumbnail does not make the image undecodable.
            bitmap = try plan.file.primary.decode()
        }
        let output =
            bitmap.width == plan.final.width && bitmap.height == plan.final.height
            ? bitmap
            : Resampler.resample(
                bitmap, width: plan.final.width, height: plan.final.height, quality: options.interpolationQuality)
        return ImageContainer(image: output)
    }
}
