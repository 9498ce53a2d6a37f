import COpenJPEG
import Foundation
import TIP

/// One-shot JPEG 2000 decoding on OpenJPEG, straight to the target size: the header is read and
/// checked first, then only the resolution levels the target needs are decoded (see
/// ``JPEG2000ResolutionSelection``), and one resampling pass gives the exact dimensions.
///
/// A codestream that is not whole (no EOC, or a short `jp2c` box) is decoded leniently and comes
/// back with `isPartial` where OpenJPEG can be trusted with it (2.5.3 and later, see
/// ``OpenJPEGVersion/allowsPartialDecoding``), else it is ``ImageDecodingError/truncatedData``; a
/// whole one is decoded strictly, so damage is an error.
enum JPEG2000Decoding {
    /// Pixels (at the resolution level decoded) from which OpenJPEG decodes on two threads. Measured
    /// on a 1880x1253 JP2: at full resolution two threads take 0.78 of one; at a quarter of each side
    /// (150,000 pixels), 1.17.
    static let parallelPixelThreshold = 1 << 20

    /// Decodes the JPEG 2000 file in `bytes`.
    static func decode(_ bytes: UnsafeRawBufferPointer, options: ImageDecodingOptions) throws(ImageDecodingError)
        -> ImageContainer
    {
        guard !bytes.isEmpty else { throw .emptyData }
        guard let layout = try JPEG2000Layout.scan(bytes), layout.hasMainHeader else { throw .truncatedData }
        return try decode(bytes, layout: layout, options: options)
    }

    /// Decodes `bytes`, whose layout is `layout` (main header present).
    static func decode(_ bytes: UnsafeRawBufferPointer, layout: JPEG2000Layout, options: ImageDecodingOptions)
        throws(ImageDecodingError) -> ImageContainer
    {
        guard layout.isComplete || OpenJPEGVersion.allowsPartialDecoding else { throw .truncatedData }
        do {
            return try decode(bytes, layout: layout, options: options, allowReduction: true)
        } catch .corruptData(let text) where text.contains("cp_reduce") {
            // A tile-part header declared fewer resolution levels than the main header: full resolution.
            return try decode(bytes, layout: layout, options: options, allowReduction: false)
        }
    }

    private static func decode(
        _ bytes: UnsafeRawBufferPointer, layout: JPEG2000Layout, options: ImageDecodingOptions,
        allowReduction: Bool
    ) throws(ImageDecodingError) -> ImageContainer {
        let header = try JPEG2000Header.read(
            bytes, layout: layout, options: options, strict: layout.isComplete, threads: 1)
        let selection = JPEG2000ResolutionSelection(
            x0: header.x0, y0: header.y0, x1: header.x1, y1: header.y1,
            resolutionLevels: allowReduction ? header.decompressor.resolutionLevels : 1,
            options: options)
        // Many pixels to decode (at the level chosen) need their own decompressor, with threads: they are
        // set before the header is read.
        let decompressor: OpenJPEGDecompressor
        if selection.decodedPixelCount >= parallelPixelThreshold, Processors.active > 1 {
            decompressor = try OpenJPEGDecompressor(bytes, format: layout.format, strict: layout.isComplete, threads: 2)
        } else {
            decompressor = header.decompressor
        }
        guard decompressor.reduce(by: selection.discardedLevels) else {
            throw .corruptData(decompressor.messages.errorText(or: "OpenJPEG refused the resolution reduction"))
        }
        guard decompressor.decode() else {
            let text = decompressor.messages.errorText(or: "OpenJPEG could not decode the image")
            throw layout.isComplete ? .corruptData(text) : .truncatedData
        }
        // The colour space, palette and alpha types exist only now: OpenJPEG applies the JP2 boxes in
        // opj_decode, and the component count can change (a palette).
        let converter = try JPEG2000PixelConverter(decoded: decompressor.image.pointee)
        let bitmap = try converter.bitmap(from: decompressor.image)
        let output =
            selection.finalWidth == bitmap.width && selection.finalHeight == bitmap.height
            ? bitmap
            : Resampler.resample(
                bitmap, width: selection.finalWidth, height: selection.finalHeight,
                quality: options.interpolationQuality)
        return ImageContainer(image: output, isPartial: !layout.isComplete)
    }
}
