import Foundation

/// The incremental context of a ``WholeFileImageFormat``: bytes are kept as they arrive, the header
/// (dimensions, alpha) is read as soon as it is in, and pixels are decoded once the file is complete
/// (its header's length or the expected length reached) or `finalize()` says nothing more will come.
///
/// ```swift
/// let context = BMPDecoder().makeContext(expectedLength: nil, options: ImageDecodingOptions())
/// _ = try context.append(chunk)                 // .didLoadHeaders once the header is in
/// _ = try context.finalize()
/// let image = try context.render(mode: .completeImage, targetDimensions: .zero, targetContentMode: .center)
/// ```
///
/// Renders before that return nil (these formats are not rendered progressively). The decoded image
/// is kept at its own size and resampled per render, unless the format decodes for the target
/// sizing (ICO), in which case the last render is kept. Not thread-safe: use from one queue at a time
/// (the ``ImageDecoderContext`` contract).
final class WholeFileDecoderContext: ImageDecoderContext {
    private(set) var data = Data()
    private let format: any WholeFileImageFormat
    private let options: ImageDecodingOptions
    private let expectedLength: Int?
    private var header: WholeFileImageHeader?
    private var isFinalized = false
    private var failure: ImageDecodingError?
    private var lastResult = ImageDecoderAppendResult.didProgress
    /// The image decoded at its own size (formats that do not decode for the target sizing), and how
    /// many bytes it was decoded from.
    private var decoded: (byteCount: Int, image: ImageContainer)?
    /// Set when a decode at `finalize()` found the file whole though the header did not tell its length.
    private var decodedWhole = false
    /// The last render of a format that decodes for the target sizing, with its sizing.
    private var lastRender: (sizing: TargetKey, image: ImageContainer)?

    private struct TargetKey: Equatable {
        var width: Double
        var height: Double
        var contentMode: ContentMode
        var byteCount: Int
    }

    init(format: any WholeFileImageFormat, expectedLength: Int?, options: ImageDecodingOptions) {
        self.format = format
        self.options = options
        self.expectedLength = expectedLength.flatMap { $0 > 0 ? $0 : nil }
        if let expectedLength = self.expectedLength { data.reserveCapacity(min(expectedLength, 64 << 20)) }
    }

    var dimensions: CGSize {
        guard let header else { return .zero }
        return header.swapsDimensions
            ? CGSize(width: header.height, height: header.width)
            : CGSize(width: header.width, height: header.height)
    }

    var frameCount: Int { isComplete ? 1 : 0 }
    var isProgressive: Bool { false }
    var isAnimated: Bool { false }
    var hasAlpha: Bool { header?.hasAlpha ?? false }

    /// Whether every byte of the file is in.
    private var isComplete: Bool {
        guard header != nil else { return false }
        if decodedWhole { return true }
        if let length = header?.fileLength, data.count >= length { return true }
        if let expectedLength, data.count >= expectedLength { return true }
        return false
    }

    func append(_ newData: Data) throws(ImageDecodingError) -> ImageDecoderAppendResult {
        if let failure { throw failure }
        let wasComplete = isComplete
        data.append(newData)
        guard !newData.isEmpty, !wasComplete else { return .didProgress }
        var result = ImageDecoderAppendResult.didProgress
        if header == nil {
            do {
                try readHeader()
            } catch {
                failure = error
                throw error
            }
            if header != nil { result = .didLoadHeaders }
        }
        if isComplete { result = .didCompleteLoading }
        lastResult = max(lastResult, result)
        return result
    }

    func finalize() throws(ImageDecodingError) -> ImageDecoderAppendResult {
        if let failure { throw failure }
        isFinalized = true
        if header == nil { try readHeader() }
        guard header != nil else { throw data.isEmpty ? .emptyData : .truncatedData }
        if isComplete { return .didCompleteLoading }
        // Without a length in the header, the decode tells whether the file is whole.
        if !format.decodesForTargetSizing, let image = try? decodedAtOwnSize(), !image.isPartial {
            decodedWhole = true
            return .didCompleteLoading
        }
        return lastResult
    }

    func render(mode: ImageDecoderRenderMode, targetDimensions: CGSize, targetContentMode: ContentMode)
        throws(ImageDecodingError) -> ImageContainer?
    {
        if let failure { throw failure }
        guard header != nil, isComplete || isFinalized else { return nil }
        if format.decodesForTargetSizing {
            let key = TargetKey(
                width: targetDimensions.width, height: targetDimensions.height, contentMode: targetContentMode,
                byteCount: data.count)
            if let lastRender, lastRender.sizing == key { return accepted(lastRender.image, mode: mode) }
            var renderOptions = options
            renderOptions.targetDimensions = targetDimensions
            renderOptions.targetContentMode = targetContentMode
            let image = try format.decode(data, options: renderOptions)
            lastRender = (key, image)
            return accepted(image, mode: mode)
        }
        let image = try decodedAtOwnSize()
        var sized = options
        sized.targetDimensions = targetDimensions
        sized.targetContentMode = targetContentMode
        _ = try sized.checkedOutputDimensions(width: image.image.width, height: image.image.height)
        let scaled = image.scaledToTargetDimensions(
            targetDimensions, contentMode: targetContentMode, quality: options.interpolationQuality)
        return accepted(scaled, mode: mode)
    }

    /// A partial image only for `anyProgress`: the other modes want whole frames.
    private func accepted(_ image: ImageContainer, mode: ImageDecoderRenderMode) -> ImageContainer? {
        image.isPartial && mode != .anyProgress ? nil : image
    }

    private func decodedAtOwnSize() throws(ImageDecodingError) -> ImageContainer {
        if let decoded, decoded.byteCount == data.count { return decoded.image }
        var ownSize = options
        ownSize.targetDimensions = .zero
        ownSize.targetContentMode = .center
        let image = try format.decode(data, options: ownSize)
        decoded = (data.count, image)
        return image
    }

    private func readHeader() throws(ImageDecodingError) {
        let format = self.format
        let found: Result<WholeFileImageHeader?, ImageDecodingError> = data.withUnsafeBytes { bytes in
            do throws(ImageDecodingError) {
                return .success(try format.readHeader(bytes))
            } catch {
                return .failure(error)
            }
        }
        guard let header = try found.get() else { return }
        try options.checkDimensions(width: header.width, height: header.height)
        self.header = header
    }
}
