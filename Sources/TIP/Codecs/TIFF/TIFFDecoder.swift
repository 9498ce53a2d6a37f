import CTIFF
import Foundation

/// Decodes TIFF with libtiff: the first image (page) of the file, strips or tiles, 1 to 16 bits per
/// sample, RGB, RGBA, gray, palette, CMYK and YCbCr, every compression libtiff reads (LZW, Deflate,
/// PackBits, JPEG, CCITT, ...), through libtiff's RGBA interface.
///
/// ```swift
/// let image = try TIFFDecoder().decode(data, options: ImageDecodingOptions())
/// ```
///
/// - Output: `rgba8Premultiplied` when an extra sample is alpha, else `rgbx8`; 16-bit samples are
///   reduced to 8; CMYK is converted with libtiff's plain formula (no colour management).
/// - The orientation tag is applied (all eight values).
/// - Limits: the dimensions are checked against `maximumPixelCount` before any pixel buffer is
///   allocated, and no single allocation libtiff makes may exceed 8 bytes per allowed pixel (plus
///   16 MiB). A file cut short (or a damaged strip) shows the rows above it (`isPartial`); anything
///   else unusable throws ``ImageDecodingError``.
/// - libtiff's messages are caught per handle (never its process-global handlers), so decodes on
///   several threads never interfere and nothing is printed.
///
/// Incremental contexts read the header as bytes arrive and decode once every strip is in.
/// Stateless: safe to call from any thread.
struct TIFFDecoder: ImageDecoder {
    /// `.match` for a TIFF or BigTIFF signature, `.needMoreData` for a matching prefix of fewer than 4 bytes.
    func detect(_ data: Data, isComplete: Bool) -> ImageDecoderDetection {
        guard TIFFHeader.couldStartTIFF(data) else { return .noMatch }
        return data.count >= 4 ? .match : (isComplete ? .noMatch : .needMoreData)
    }

    /// Decodes the first image of `data` to the options' target sizing.
    func decode(_ data: Data, options: ImageDecodingOptions) throws(ImageDecodingError) -> ImageContainer {
        try ImageContainer.decoding(data, options: options) { bytes throws(ImageDecodingError) in
            try TIFFDecoder.decodeBitmap(bytes, options: options)
        }
    }

    /// A context that reads the header as bytes arrive and decodes once the file is complete.
    func makeContext(expectedLength: Int?, options: ImageDecodingOptions) -> any ImageDecoderContext {
        WholeFileDecoderContext(format: TIFFFileFormat(), expectedLength: expectedLength, options: options)
    }

    /// The first image, stored-order rows, its orientation and whether rows are missing.
    private static func decodeBitmap(
        _ bytes: UnsafeRawBufferPointer,
        options: ImageDecodingOptions
    ) throws(ImageDecodingError) -> (Bitmap, ImageOrientation, Bool) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { throw .emptyData }
        var message = [CChar](repeating: 0, count: 256)
        var info = tip_tiff_info()
        let (perPixel, overflow) = options.maximumPixelCount.multipliedReportingOverflow(by: 8)
        let allocationLimit = overflow ? UInt64.max : UInt64(perPixel) + 16 << 20
        let opened = message.withUnsafeMutableBufferPointer { text in
            tip_tiff_open(base, bytes.count, allocationLimit, &info, text.baseAddress, text.count)
        }
        guard let image = opened else {
            throw failure(bytes, message: text(message))
        }
        defer { tip_tiff_close(image) }
        let width = Int(info.width), height = Int(info.height)
        try options.checkDimensions(width: width, height: height)
        guard info.is_supported != 0 else { throw .unsupported("TIFF: \(text(message))") }
        let format: PixelFormat = info.alpha != 0 ? .rgba8Premultiplied : .rgbx8
        guard var bitmap = Bitmap(uninitializedWidth: width, height: height, format: format) else {
            throw .unsupported("out of memory for \(width)x\(height)")
        }
        let orientation = ImageOrientation(rawValue: Int(info.orientation)) ?? .up
        if decodeInParallel(bytes, first: image, info: info, allocationLimit: allocationLimit, into: &bitmap) {
            return (bitmap, orientation, false)
        }
        var rowsComplete: UInt32 = 0
        let stride = bitmap.bytesPerRow
        let status = bitmap.withUnsafeMutableBytes { pixels in
            message.withUnsafeMutableBufferPointer { text in
                tip_tiff_read_rgba(
                    image, pixels.baseAddress?.assumingMemoryBound(to: UInt8.self), stride, &rowsComplete,
                    text.baseAddress, text.count)
            }
        }
        switch Int(status) {
        case Int(TIP_TIFF_OK):
            return (bitmap, orientation, false)
        case Int(TIP_TIFF_PARTIAL):
            bitmap.fillMissingRows(Int(rowsComplete)..<height)
            return (bitmap, orientation, true)
        default:
            throw failure(bytes, message: text(message))
        }
    }

    /// Truncated when the header says the image needs bytes the data lacks, else corrupt.
    private static func failure(_ bytes: UnsafeRawBufferPointer, message: String) -> ImageDecodingError {
        do {
            guard let header = try TIFFHeader(bytes) else { return .truncatedData }
            return header.fileLength > bytes.count ? .truncatedData : .corruptData("TIFF: \(message)")
        } catch {
            return error
        }
    }

    static func text(_ message: [CChar]) -> String {
        String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// TIFF as a ``WholeFileImageFormat``: the header from the first directory (``TIFFHeader``).
struct TIFFFileFormat: WholeFileImageFormat {
    func readHeader(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodingError) -> WholeFileImageHeader? {
        guard let header = try TIFFHeader(bytes) else { return nil }
        return WholeFileImageHeader(
            width: header.width, height: header.height, swapsDimensions: header.orientation.swapsDimensions,
            hasAlpha: header.hasAlpha, fileLength: header.fileLength)
    }

    func decode(_ data: Data, options: ImageDecodingOptions) throws(ImageDecodingError) -> ImageContainer {
        try TIFFDecoder().decode(data, options: options)
    }
}
