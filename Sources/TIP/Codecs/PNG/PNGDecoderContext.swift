import Foundation

/// The incremental state of one PNG decode: chunk headers are scanned as bytes arrive, and once
/// the image data starts, libpng's progressive reader writes rows into a canvas as they decode, so
/// `anyProgress` renders show every row received so far (interlaced images sharpen pass by pass).
///
/// Not thread-safe: use from one queue at a time (the ``ImageDecoderContext`` contract).
final class PNGDecoderContext: ImageDecoderContext {
    private(set) var data = Data()
    private let options: ImageDecodingOptions
    private var scanner = PNGChunkScanner()
    private var reader: PNGRowReader?
    /// Bytes of `data` already given to `reader`.
    private var fedCount = 0
    private var failure: ImageDecodingError?
    private var lastResult: ImageDecoderAppendResult = .didProgress

    init(options: ImageDecodingOptions) {
        self.options = options
    }

    var dimensions: CGSize {
        guard let header = scanner.header else { return .zero }
        return scanner.orientation.swapsDimensions
            ? CGSize(width: header.height, height: header.width)
            : CGSize(width: header.width, height: header.height)
    }

    var frameCount: Int { scanner.isComplete ? 1 : 0 }
    var isProgressive: Bool { scanner.header?.isInterlaced ?? false }
    var isAnimated: Bool { false }
    var hasAlpha: Bool {
        guard let header = scanner.header else { return false }
        return header.hasAlphaChannel || scanner.hasTransparencyChunk
    }

    func append(_ newData: Data) throws(ImageDecodingError) -> ImageDecoderAppendResult {
        if let failure { throw failure }
        data.append(newData)
        // Bytes after IEND are kept in `data` but never decoded.
        guard !newData.isEmpty, !scanner.isComplete else { return .didProgress }
        let hadHeader = scanner.header != nil
        do {
            try process()
        } catch {
            failure = error
            throw error
        }
        var result = ImageDecoderAppendResult.didProgress
        if !hadHeader && scanner.header != nil { result = .didLoadHeaders }
        if scanner.isComplete { result = .didCompleteLoading }
        lastResult = max(lastResult, result)
        return result
    }

    func finalize() throws(ImageDecodingError) -> ImageDecoderAppendResult {
        if let failure { throw failure }
        guard scanner.header != nil else { throw data.isEmpty ? .emptyData : .truncatedData }
        if reader == nil && !scanner.isComplete {
            // The data ended before the first IDAT: give libpng what there is, for a clean verdict.
            try startReader()
        }
        return scanner.isComplete ? .didCompleteLoading : lastResult
    }

    func render(mode: ImageDecoderRenderMode, targetDimensions: CGSize, targetContentMode: ContentMode) throws(ImageDecodingError) -> ImageContainer? {
        if let failure, reader == nil { throw failure }
        if mode != .anyProgress && !scanner.isComplete { return nil }
        guard let reader, let (bitmap, isWhole) = reader.image(finalizing: false) else {
            if scanner.isComplete {
                let status = reader?.status
                throw status?.failed == true ? .corruptData(status?.message ?? "") : .truncatedData
            }
            return nil
        }
        let status = reader.status
        let isPartial = !(isWhole && !status.failed && scanner.isComplete)
        return try PNGDecoder.finish(bitmap, orientation: scanner.orientation, isPartial: isPartial, options: options,
                                     targetDimensions: targetDimensions, contentMode: targetContentMode)
    }

    private func process() throws(ImageDecodingError) {
        let hadHeader = scanner.header != nil
        let scanError: ImageDecodingError? = data.withUnsafeBytes { bytes in
            do throws(ImageDecodingError) {
                try scanner.scan(bytes)
                return nil
            } catch {
                return error
            }
        }
        if let scanError { throw scanError }
        if !hadHeader, let header = scanner.header {
            try options.checkDimensions(width: header.width, height: header.height)
        }
        if reader == nil, scanner.imageDataOffset != nil {
            try startReader()
        } else if reader != nil {
            try feedReader()
        }
    }

    private func startReader() throws(ImageDecodingError) {
        guard let header = scanner.header else { return }
        let format = header.outputFormat(hasTransparencyChunk: scanner.hasTransparencyChunk)
        guard let made = PNGRowReader(header: header, format: format, initializeCanvas: true) else {
            throw .unsupported("out of memory for \(header.width)x\(header.height)")
        }
        reader = made
        try feedReader()
    }

    private func feedReader() throws(ImageDecodingError) {
        guard let reader else { return }
        let end = min(scanner.endOffset ?? data.count, data.count)
        guard end > fedCount else { return }
        let start = fedCount
        fedCount = end
        let ok = data.withUnsafeBytes { bytes in
            reader.feed(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
        }
        if !ok {
            throw .corruptData(reader.status.message)
        }
    }
}
