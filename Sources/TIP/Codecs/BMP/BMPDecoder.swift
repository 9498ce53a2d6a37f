import Foundation

/// Decodes Windows bitmaps (`.bmp`, `.dib`) with the project's own reader: every DIB header version,
/// 1/2/4/8-bit indexed, 16- and 32-bit bit fields (alpha included), 24-bit, RLE8 and RLE4,
/// bottom-up and top-down rows.
///
/// ```swift
/// let image = try BMPDecoder().decode(data, options: ImageDecodingOptions())
/// ```
///
/// Pixels are described in `BMPPixelReader`. The header is checked against `maximumPixelCount`
/// before anything is allocated; a file cut short shows the rows it holds (`isPartial`); a damaged
/// header throws ``ImageDecodingError``. Embedded JPEG or PNG payloads are not decoded
/// (``ImageDecodingError/unsupported(_:)``). Incremental contexts decode once the file is complete.
/// Stateless: safe to call from any thread.
struct BMPDecoder: ImageDecoder {
    /// `.match` for the "BM" signature (a prefix of one byte says `.needMoreData`).
    func detect(_ data: Data, isComplete: Bool) -> ImageDecoderDetection {
        guard let first = data.first else { return isComplete ? .noMatch : .needMoreData }
        guard first == 0x42 else { return .noMatch }
        guard data.count >= 2 else { return isComplete ? .noMatch : .needMoreData }
        return data[data.startIndex + 1] == 0x4D ? .match : .noMatch
    }

    /// Decodes `data` to the options' target sizing.
    func decode(_ data: Data, options: ImageDecodingOptions) throws(ImageDecodingError) -> ImageContainer {
        try ImageContainer.decoding(data, options: options) { bytes throws(ImageDecodingError) in
            guard let header = try BMPHeader(file: bytes) else { throw .truncatedData }
            try options.checkDimensions(width: header.width, height: header.height)
            let (bitmap, isPartial) = try BMPPixelReader.decode(bytes, header: header)
            return (bitmap, .up, isPartial)
        }
    }

    /// A context that reads the header as bytes arrive and decodes once the file is complete.
    func makeContext(expectedLength: Int?, options: ImageDecodingOptions) -> any ImageDecoderContext {
        WholeFileDecoderContext(format: BMPFileFormat(), expectedLength: expectedLength, options: options)
    }
}

/// BMP as a ``WholeFileImageFormat``: the header from ``BMPHeader``, the length from its pixel data.
struct BMPFileFormat: WholeFileImageFormat {
    func readHeader(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodingError) -> WholeFileImageHeader? {
        guard let header = try BMPHeader(file: bytes) else { return nil }
        return WholeFileImageHeader(
            width: header.width, height: header.height, hasAlpha: header.hasAlpha,
            fileLength: header.pixelDataEnd)
    }

    func decode(_ data: Data, options: ImageDecodingOptions) throws(ImageDecodingError) -> ImageContainer {
        try BMPDecoder().decode(data, options: options)
    }
}
