import Foundation
import TIP

/// Incremental HEIF decoding.
///
/// Bytes accumulate while the top-level boxes are followed (no decoding). Once the `meta` box is
/// whole, libheif reads it from the bytes so far (boxes only, no pixel) and the dimensions and
/// alpha are known (``ImageDecodingOptions/readsHeaderOnly`` stops there); the `iloc` box says how
/// many bytes the image data needs, so loading completes when they are in (or at the expected
/// length, or at `finalize`). HEIF is not progressive: only the complete image renders, as a
/// one-shot decode does (cached per output size).
///
/// Not thread-safe: use from one queue at a time (the ``ImageDecoderContext`` contract).
final class HEIFDecoderContext: ImageDecoderContext {
    /// Every byte appended so far.
    private(set) var data: Data
    private let format: HEIFCodec.Format
    private let expectedLength: Int?
    private let options: ImageDecodingOptions
    private var container: HEIFContainer?
    private var header: (width: Int, height: Int, alpha: Bool)?
    private var headerAttemptLength = -1
    private var isFinalized = false
    private var cached: (width: Int, height: Int, image: ImageContainer)?

    /// The largest file length the `iloc` box alone may declare for an early header read (128 MiB).
    static let maximumDeclaredLength = 128 << 20

    init(format: HEIFCodec.Format, expectedLength: Int?, options: ImageDecodingOptions) {
        self.format = format
        self.expectedLength = expectedLength
        self.options = options
        data = Data()
        if let expectedLength, expectedLength > 0 { data.reserveCapacity(min(expectedLength, 64 << 20)) }
    }

    /// The primary image's displayed size, zero until the `meta` box is read.
    var dimensions: CGSize { header.map { CGSize(width: $0.width, height: $0.height) } ?? .zero }
    /// 1 once every byte of the image data arrived.
    var frameCount: Int { isComplete ? 1 : 0 }
    /// Always false: HEIF stills render only when complete.
    var isProgressive: Bool { false }
    /// Always false: only still images are decoded.
    var isAnimated: Bool { false }
    /// True once the header shows an alpha plane.
    var hasAlpha: Bool { header?.alpha ?? false }

    private var isComplete: Bool {
        guard header != nil else { return false }
        if isFinalized { return true }
        if let expectedLength, data.count >= expectedLength { return true }
        if let required = container?.requiredLength, data.count >= required { return true }
        return false
    }

    func append(_ newData: Data) throws(ImageDecodingError) -> ImageDecoderAppendResult {
        data.append(newData)
        if container == nil || container?.hasMeta == false {
            switch data.withUnsafeBytes({ HEIFContainer.detect($0, coding: format.coding, isComplete: false) }) {
            case .noMatch: throw .unrecognizedFormat
            case .needMoreData: return .didProgress
            case .match: break
            }
            container = data.withUnsafeBytes { HEIFContainer.scan($0) }
        }
        var result = ImageDecoderAppendResult.didProgress
        if header == nil {
            guard try readHeader() else { return .didProgress }
            result = .didLoadHeaders
        }
        return isComplete ? .didCompleteLoading : result
    }

    /// Reads the header once the `meta` box is whole; again at the end if the bytes then were not enough.
    private func readHeader() throws(ImageDecodingError) -> Bool {
        guard let container, container.hasMeta else { return false }
        let complete =
            isFinalized || expectedLength.map { data.count >= $0 } ?? false
            || container.requiredLength.map { data.count >= $0 } ?? false
        // While the image data is still arriving, libheif reads the boxes from the bytes so far
        // padded with zeros to the file's length (it checks every iloc extent against the length,
        // and reads metadata items such as Exif, which may not be here yet). An unknown length is
        // taken from the iloc box up to a bound.
        let declaredLength =
            complete
            ? nil : (expectedLength ?? container.requiredLength.flatMap { $0 <= Self.maximumDeclaredLength ? $0 : nil })
        guard complete || (headerAttemptLength < 0 && declaredLength != nil) else { return false }
        headerAttemptLength = data.count
        var file = data
        if let declaredLength, declaredLength > file.count { file.append(Data(count: declaredLength - file.count)) }
        do {
            let plan = try file.withTypedBytes { bytes throws(ImageDecodingError) in
                try HEIFDecoding.plan(bytes, options: options)
            }
            header = (plan.file.primary.width, plan.file.primary.height, plan.file.primary.hasAlpha)
            return true
        } catch .dimensionsTooLarge(let width, let height, let limit) {
            throw .dimensionsTooLarge(width: width, height: height, maximumPixelCount: limit)
        } catch {
            // libheif may need bytes past the meta box (item data in idat or mdat): try again at the end.
            if complete { throw error }
            return false
        }
    }

    func finalize() throws(ImageDecodingError) -> ImageDecoderAppendResult {
        if data.isEmpty { throw .emptyData }
        isFinalized = true
        if container == nil {
            let started =
                data.withUnsafeBytes { HEIFContainer.detect($0, coding: format.coding, isComplete: false) }
                == .needMoreData
            throw started ? .truncatedData : .unrecognizedFormat
        }
        if header == nil {
            guard try readHeader() else { throw .truncatedData }
        }
        return .didCompleteLoading
    }

    func render(mode: ImageDecoderRenderMode, targetDimensions: CGSize, targetContentMode: ContentMode)
        throws(ImageDecodingError) -> ImageContainer?
    {
        guard let header, isComplete, !options.readsHeaderOnly else { return nil }
        var renderOptions = options
        renderOptions.targetDimensions = targetDimensions
        renderOptions.targetContentMode = targetContentMode
        let output = try renderOptions.checkedOutputDimensions(width: header.width, height: header.height)
        if let cached, cached.width == output.width, cached.height == output.height { return cached.image }
        let image = try data.withTypedBytes { bytes throws(ImageDecodingError) in
            try HEIFDecoding.decode(bytes, options: renderOptions)
        }
        cached = (output.width, output.height, image)
        return image
    }
}
