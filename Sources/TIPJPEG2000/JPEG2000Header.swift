import COpenJPEG
import TIP

/// What the main header of a JPEG 2000 codestream says, read by OpenJPEG (no pixel work), with
/// the decompressor that read it.
struct JPEG2000Header {
    /// The decompressor, positioned after the header.
    let decompressor: OpenJPEGDecompressor
    /// The image area on the reference grid.
    let x0: Int, y0: Int, x1: Int, y1: Int
    /// How the components become pixels.
    let converter: JPEG2000PixelConverter

    /// Width in pixels.
    var width: Int { x1 - x0 }
    /// Height in pixels.
    var height: Int { y1 - y0 }
    /// Whether an alpha component is present.
    var hasAlpha: Bool { converter.alphaComponent != nil }

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
        guard x1 > x0, y1 > y0, image.numcomps > 0, let components = image.comps else {
            throw .corruptData("invalid JPEG 2000 image area \(x0),\(y0)-\(x1),\(y1)")
        }
        try options.checkDimensions(width: x1 - x0, height: y1 - y0)
        let count = Int(image.numcomps)
        guard count <= 5 else { throw .unsupported("JPEG 2000 with \(count) components") }
        let converter = try JPEG2000PixelConverter(
            componentCount: count, alpha: (0..<count).map { Int(components[$0].alpha) },
            colorSpace: image.color_space)
        return JPEG2000Header(decompressor: decompressor, x0: x0, y0: y0, x1: x1, y1: y1, converter: converter)
    }
}
