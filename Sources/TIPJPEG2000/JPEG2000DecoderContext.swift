import Foundation
import TIP

/// Incremental JPEG 2000 decoding.
///
/// Bytes accumulate; the layout (JP2 boxes, codestream markers) is followed as they arrive, and the
/// header is read by OpenJPEG once, as soon as the main header is whole: dimensions (and whether
/// alpha may be present) are known from then on, before any pixel is decoded
/// (``ImageDecodingOptions/readsHeaderOnly`` stops there). With OpenJPEG 2.5.3 or later,
/// `anyProgress` renders decode what the bytes so far hold (a JPEG 2000 codestream is progressive by
/// layers or resolutions), at the resolution level the target needs; older versions render only the
/// complete image. The complete image renders exactly as a one-shot decode does. The last render is
/// cached per output size and byte count.
///
/// Not thread-safe: use from one queue at a time (the ``ImageDecoderContext`` contract).
final class JPEG2000DecoderContext: ImageDecoderContext {
    /// Every byte appended so far.
    private(set) var data: Data
    private let options: ImageDecodingOptions
    private var layout: JPEG2000Layout?
    private var size: (width: Int, height: Int)?
    private var alpha = false
    private var cached: (key: CacheKey, image: ImageContainer)?

    private struct CacheKey: Equatable {
        var width: Int
        var height: Int
        var byteCount: Int
    }

    init(expectedLength: Int?, options: ImageDecodingOptions) {
        self.options = options
        data = Data()
        if let expectedLength, expectedLength > 0 { data.reserveCapacity(min(expectedLength, 64 << 20)) }
    }

    /// The image size in pixels, zero until the main header arrived.
    var dimensions: CGSize { size.map { CGSize(width: $0.width, height: $0.height) } ?? .zero }
    /// 1 once the codestream is whole.
    var frameCount: Int { isComplete ? 1 : 0 }
    /// True once the header is read, where partial codestreams render (OpenJPEG 2.5.3 or later).
    var isProgressive: Bool { size != nil && OpenJPEGVersion.allowsPartialDecoding }
    /// Always false.
    var isAnimated: Bool { false }
    /// True once the header is read and shows that the image may have an alpha component; after a
    /// render, whether it has one (a JP2's `cdef` and `pclr` boxes are applied only while decoding).
    var hasAlpha: Bool { alpha }

    private var isComplete: Bool { layout?.isComplete ?? false }

    func append(_ newData: Data) throws(ImageDecodingError) -> ImageDecoderAppendResult {
        data.append(newData)
        if let layout, layout.isComplete { return .didCompleteLoading }
        guard
            let scanned = try data.withTypedBytes({ bytes throws(ImageDecodingError) in try JPEG2000Layout.scan(bytes) }
            )
        else {
            return .didProgress
        }
        layout = scanned
        var result = ImageDecoderAppendResult.didProgress
        if size == nil, scanned.hasMainHeader {
            let header = try data.withTypedBytes { bytes throws(ImageDecodingError) in
                try JPEG2000Header.read(bytes, layout: scanned, options: options, strict: true, threads: 1)
            }
            size = (header.width, header.height)
            alpha = header.hasAlpha
            result = .didLoadHeaders
        }
        if scanned.isComplete, size != nil { result = .didCompleteLoading }
        return result
    }

    func finalize() throws(ImageDecodingError) -> ImageDecoderAppendResult {
        if data.isEmpty { throw .emptyData }
        guard layout != nil else { throw .unrecognizedFormat }
        guard size != nil else { throw .truncatedData }
        return isComplete ? .didCompleteLoading : .didLoadHeaders
    }

    func render(mode: ImageDecoderRenderMode, targetDimensions: CGSize, targetContentMode: ContentMode)
        throws(ImageDecodingError) -> ImageContainer?
    {
        guard let layout, let size, !options.readsHeaderOnly else { return nil }
        let complete = layout.isComplete
        if !complete && mode != .anyProgress { return nil }
        var renderOptions = options
        renderOptions.targetDimensions = targetDimensions
        renderOptions.targetContentMode = targetContentMode
        let output = try renderOptions.checkedOutputDimensions(width: size.width, height: size.height)
        let key = CacheKey(width: output.width, height: output.height, byteCount: data.count)
        if let cached, cached.key == key { return cached.image }
        let image: ImageContainer
        do {
            image = try data.withTypedBytes { bytes throws(ImageDecodingError) in
                try JPEG2000Decoding.decode(bytes, layout: layout, options: renderOptions)
            }
        } catch .truncatedData where !complete {
            return nil  // nothing decodable yet
        }
        alpha = image.image.format.hasAlpha  // the header's guess, settled by decoding
        cached = (key, image)
        return image
    }
}
