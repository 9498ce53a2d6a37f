import Foundation

/// Decodes Windows icons (`.ico`): the directory's entry that fits the target size best (see
/// `ICODirectory/bestEntry(in:for:contentMode:)`), PNG entries through ``PNGDecoder``, bitmap
/// entries through the BMP reader with their AND mask or 32-bit alpha. Output is
/// `rgba8Premultiplied` (or what the PNG decodes to).
///
/// ```swift
/// let options = ImageDecodingOptions(
///     targetDimensions: CGSize(width: 32, height: 32), targetContentMode: .scaleAspectFit)
/// let favicon = try ICODecoder().decode(data, options: options)
/// ```
///
/// Each entry's header is checked against `maximumPixelCount` before it is decoded; an entry cut
/// short shows what arrived (`isPartial`). Incremental contexts decode once every entry's data is in
/// (the directory tells where the file ends); their dimensions are the largest entry's. Stateless:
/// safe to call from any thread.
struct ICODecoder: ImageDecoder {
    /// `.match` for the icon signature (reserved 0, type 1) not followed by `ftyp` (an ISO-BMFF file
    /// whose first box is 256 bytes long starts with the same 4 bytes), `.needMoreData` while a prefix
    /// may still be either (at most 7 bytes).
    func detect(_ data: Data, isComplete: Bool) -> ImageDecoderDetection {
        switch ImageType.detect(fromMagicNumbers: data) {
        case .match(let type):
            return type == .ico ? .match : .noMatch
        case .needMoreData:
            return !isComplete && ICODirectory.signature.starts(with: data.prefix(4)) ? .needMoreData : .noMatch
        case .noMatch:
            return .noMatch
        }
    }

    /// Decodes the best entry for the options' target sizing, scaled to it.
    func decode(_ data: Data, options: ImageDecodingOptions) throws(ImageDecodingError) -> ImageContainer {
        guard !data.isEmpty else { throw .emptyData }
        let decoded: Result<ImageContainer, ImageDecodingError> = data.withUnsafeBytes { bytes in
            do throws(ImageDecodingError) {
                return .success(try ICODecoder.decode(bytes, options: options))
            } catch {
                return .failure(error)
            }
        }
        return try decoded.get()
    }

    /// A context that reads the directory as bytes arrive and decodes once the file is complete.
    func makeContext(expectedLength: Int?, options: ImageDecodingOptions) -> any ImageDecoderContext {
        WholeFileDecoderContext(format: ICOFileFormat(), expectedLength: expectedLength, options: options)
    }

    private static func decode(_ bytes: UnsafeRawBufferPointer, options: ImageDecodingOptions)
        throws(ImageDecodingError) -> ImageContainer
    {
        guard let directory = try ICODirectory(bytes) else { throw .truncatedData }
        let chosen = directory.bestEntry(
            in: bytes, for: options.targetDimensions, contentMode: options.targetContentMode)
        let entry = chosen.entry
        guard entry.offset < bytes.count else { throw .truncatedData }
        let end = min(bytes.count, entry.offset + entry.size)
        let isCut = end < entry.offset + entry.size
        let payload = UnsafeRawBufferPointer(rebasing: bytes[entry.offset..<end])
        if payload.starts(with: PNGChunkScanner.signature) {
            let image = try PNGDecoder.decode(payload, options: options)
            return ImageContainer(image: image.image, isPartial: image.isPartial || isCut)
        }
        guard let header = try BMPHeader(iconEntry: payload, at: 0) else { throw .truncatedData }
        try options.checkDimensions(width: header.width, height: header.height)
        let (bitmap, isPartial) = try BMPPixelReader.decode(payload, header: header)
        return try ImageContainer.decoded(bitmap, isPartial: isPartial || isCut, options: options)
    }
}

/// ICO as a ``WholeFileImageFormat``: dimensions of the largest entry, length from the directory,
/// and a decode that depends on the target sizing (the entry is picked for it).
struct ICOFileFormat: WholeFileImageFormat {
    var decodesForTargetSizing: Bool { true }

    func readHeader(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodingError) -> WholeFileImageHeader? {
        guard let directory = try ICODirectory(bytes) else { return nil }
        // Wait for the start of the largest entry the directory lists (enough for a DIB header or a
        // PNG's IHDR): its own header, not the directory, says how large it is.
        let listed = directory.entries.max { ($0.width * $0.height, $0.bitCount) < ($1.width * $1.height, $1.bitCount) }
        guard let listed, bytes.count >= min(directory.fileLength, listed.offset + 40) else { return nil }
        let settled = directory.bestEntry(in: bytes, for: .zero, contentMode: .center)
        return WholeFileImageHeader(
            width: settled.width, height: settled.height, hasAlpha: true, fileLength: directory.fileLength)
    }

    func decode(_ data: Data, options: ImageDecodingOptions) throws(ImageDecodingError) -> ImageContainer {
        try ICODecoder().decode(data, options: options)
    }
}
