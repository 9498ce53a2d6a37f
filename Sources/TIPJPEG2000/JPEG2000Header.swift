import COpenJPEG
import TIP

/// What the main header of a JPEG 2000 codestream says, read by OpenJPEG (no pixel work), with
/// the decompressor that read it: what is needed before decoding (dimensions, limits). How the
/// components become pixels is known only after decoding (see ``JPEG2000PixelConverter``).
struct JPEG2000Header {
    /// The decompressor, positioned after the header.
    let decompressor: OpenJPEGDecompressor
    /// The image area on the reference grid.
    let x0: Int, y0: Int, x1: Int, y1: Int
    /// Whether the image may have alpha (a guess from the component count, see
    /// ``JPEG2000PixelConverter/mayHaveAlpha(componentCount:)``).
    let hasAlpha: Bool

    /// Width in pixels.
    var width: Int { x1 - x0 }
    /// Height in pixels.
    var height: Int { y1 - y0 }

    /// Reads the header of `bytes`, whose layout is `layout` (main header present). The SIZ marker is
    /// checked against `options` before OpenJPEG reads anything (see ``JPEG2000Size``), and the image
    /// OpenJPEG reports again after. Throws for anything that is not a decodable JPEG 2000 image.
    static func read(
        _ bytes: UnsafeRawBufferPointer, layout: JPEG2000Layout, options: ImageDecodingOptions, strict: Bool,
        threads: Int
    ) throws(ImageDecodingError) -> JPEG2000Header {
        guard let size = layout.size else { throw .corruptData("no valid SIZ marker after SOC") }
        try size.check(options)
        let decompressor = try OpenJPEGDecompressor(bytes, format: layout.format, strict: strict, threads: threads)
        let image = decompressor.image.pointee
        let x0 = Int(image.x0), y0 = Int(image.y0), x1 = Int(image.x1), y1 = Int(image.y1)
        guard x1 > x0, y1 > y0, image.numcomps > 0, image.comps != nil else {
            throw .corruptData("invalid JPEG 2000 image area \(x0),\(y0)-\(x1),\(y1)")
        }
        try options.checkDimensions(width: x1 - x0, height: y1 - y0)
        let count = Int(image.numcomps)
        guard count <= 5 else { throw .unsupported("JPEG 2000 with \(count) components") }
        return JPEG2000Header(
            decompressor: decompressor, x0: x0, y0: y0, x1: x1, y1: y1,
            hasAlpha: JPEG2000PixelConverter.mayHaveAlpha(componentCount: count))
    }
}
