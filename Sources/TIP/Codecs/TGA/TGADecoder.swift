import Foundation

/// Decodes TARGA (`.tga`) images with the project's own reader: colour-mapped, true colour (15, 16,
/// 24, 32 bits) and gray, uncompressed or run-length encoded, any origin (see `TGAPixelReader`).
///
/// ```swift
/// let image = try TGADecoder().decode(data, options: ImageDecodingOptions())
/// ```
///
/// TGA has no signature: ``detect(_:isComplete:)`` checks that the 18-byte header is one TGA allows
/// (every field in range). The header is checked against `maximumPixelCount` before anything is
/// allocated; a file cut short shows the rows it holds (`isPartial`). Incremental contexts decode once
/// the file is complete. Stateless: safe to call from any thread.
struct TGADecoder: ImageDecoder {
    /// `.match` when the first 18 bytes are a valid TGA header, `.needMoreData` for fewer while more may come.
    func detect(_ data: Data, isComplete: Bool) -> ImageDecoderDetection {
        guard data.count >= 18 else { return isComplete ? .noMatch : .needMoreData }
        let valid = data.prefix(18).withUnsafeBytes { TGAHeader.looksValid($0) }
        return valid ? .match : .noMatch
    }

    /// Decodes `data` to the options' target sizing.
    func decode(_ data: Data, options: ImageDecodingOptions) throws(ImageDecodingError) -> ImageContainer {
        try ImageContainer.decoding(data, options: options) { bytes throws(ImageDecodingError) in
            guard let header = try TGAHeader(bytes) else { throw .truncatedData }
            try options.checkDimensions(width: header.width, height: header.height)
            let (bitmap, isPartial) = try TGAPixelReader.decode(bytes, header: header)
            return (bitmap, .up, isPartial)
        }
    }

    /// A context that reads the header as bytes arrive and decodes once the file is complete.
    func makeContext(expectedLength: Int?, options: ImageDecodingOptions) -> any ImageDecoderContext {
        WholeFileDecoderContext(format: TGAFileFormat(), expectedLength: expectedLength, options: options)
    }
}

/// TGA as a ``WholeFileImageFormat``. An uncompressed file's pixel data ends where its header says;
/// a run-length-encoded one is complete only by the expected length or at `finalize()`.
struct TGAFileFormat: WholeFileImageFormat {
    func readHeader(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodingError) -> WholeFileImageHeader? {
        guard let header = try TGAHeader(bytes) else { return nil }
        return WholeFileImageHeader(
            width: header.width, height: header.height, hasAlpha: header.mayHaveAlpha,
            fileLength: header.pixelDataEnd)
    }

    func decode(_ data: Data, options: ImageDecodingOptions) throws(ImageDecodingError) -> ImageContainer {
        try TGADecoder().decode(data, options: options)
    }
}
