import Foundation

/// Incremental GIF decoding: ``GIFBlockScanner`` follows the block structure as bytes arrive
/// (no LZW work), and ``render(mode:targetDimensions:targetContentMode:)`` advances one
/// ``GIFFrameReader`` (giflib) to the end of the last complete frame, so each frame is decoded once.
///
/// ```swift
/// let context = GIFCodec().decoder.makeContext(expectedLength: nil, options: ImageDecodingOptions())
/// if try context.append(chunk) >= .didLoadFrame {
///     let firstFrames = try context.render(
///         mode: .fullFrameProgress, targetDimensions: .zero, targetContentMode: .center)
/// }
/// ```
///
/// `anyProgress` and `fullFrameProgress` both render the complete frames so far (a GIF frame is
/// not shown half-decoded); `completeImage` renders only once the trailer arrived. The last render
/// is cached per output size and frame count.
///
/// Not thread-safe: use from one queue at a time (the ``ImageDecoderContext`` contract).
final class GIFDecoderContext: ImageDecoderContext {
    /// Every byte appended so far.
    private(set) var data: Data
    private let options: ImageDecodingOptions
    private var scanner = GIFBlockScanner()
    private var progress = ImageDecoderAppendResult.didProgress
    private var cached: (key: CacheKey, image: ImageContainer)?
    /// giflib decoding resumed at each render over the bytes up to the last complete frame, so
    /// every frame is decoded once; it keeps its frames at canvas size.
    private var reader: GIFFrameReader?

    /// A render depends only on the output size and on which bytes were decoded.
    private struct CacheKey: Equatable {
        var width: Int
        var height: Int
        var frameCount: Int
        var isComplete: Bool
    }

    init(expectedLength: Int?, options: ImageDecodingOptions) {
        self.options = options
        data = Data()
        if let expectedLength, expectedLength > 0 { data.reserveCapacity(min(expectedLength, 64 << 20)) }
    }

    /// The logical screen size in pixels, zero until the header arrived.
    var dimensions: CGSize { scanner.hasHeader ? CGSize(width: scanner.width, height: scanner.height) : .zero }
    /// Frames whose bytes are complete.
    var frameCount: Int { scanner.completeFrameCount }
    /// Always false: interlacing is per frame and not rendered progressively.
    var isProgressive: Bool { false }
    /// True once a second frame or a NETSCAPE2.0 / ANIMEXTS1.0 block arrived.
    var isAnimated: Bool { scanner.completeFrameCount > 1 || scanner.hasLoopBlock }
    /// True once the header arrived: frames are `rgba8Premultiplied` and may be transparent.
    var hasAlpha: Bool { scanner.hasHeader }

    func append(_ newData: Data) throws(ImageDecodingError) -> ImageDecoderAppendResult {
        data.append(newData)
        let hadHeader = scanner.hasHeader
        if !hadHeader, GIFDecoder.detect(Array(data.prefix(6)), isComplete: false) == .noMatch {
            throw .unrecognizedFormat
        }
        let event = data.withUnsafeBytes { scanner.scan($0) }
        if !hadHeader, scanner.hasHeader {
            try options.checkDimensions(width: scanner.width, height: scanner.height)
        }
        if let failure = scanner.failure, scanner.completeFrameCount == 0 {
            throw scanner.hasHeader ? .corruptData(failure) : .unrecognizedFormat
        }
        let result: ImageDecoderAppendResult
        switch event {
        case .none: result = .didProgress
        case .header: result = .didLoadHeaders
        case .frame: result = .didLoadFrame
        case .trailer: result = .didCompleteLoading
        }
        progress = max(progress, result)
        return result
    }

    func finalize() throws(ImageDecodingError) -> ImageDecoderAppendResult {
        if data.isEmpty { throw .emptyData }
        if scanner.hasTrailer { return .didCompleteLoading }
        guard scanner.hasHeader else { throw .truncatedData }
        return progress
    }

    func render(mode: ImageDecoderRenderMode, targetDimensions: CGSize, targetContentMode: ContentMode)
        throws(ImageDecodingError) -> ImageContainer?
    {
        let complete = scanner.hasTrailer
        if mode == .completeImage && !complete { return nil }
        let frames = scanner.completeFrameCount
        guard frames > 0 else { return nil }
        var renderOptions = options
        renderOptions.targetDimensions = targetDimensions
        renderOptions.targetContentMode = targetContentMode
        let output = try renderOptions.checkedOutputDimensions(width: scanner.width, height: scanner.height)
        let key = CacheKey(width: output.width, height: output.height, frameCount: frames, isComplete: complete)
        if let cached, cached.key == key { return cached.image }
        let length = complete ? scanner.position : scanner.endOfLastCompleteFrame
        let reader = self.reader ?? GIFFrameReader(options: options, scalesFrames: false)
        self.reader = reader
        let outcome: Swift.Result<Void, ImageDecodingError> = data.withUnsafeBytes { raw in
            do throws(ImageDecodingError) {
                return .success(try reader.advance(raw, to: length))
            } catch {
                return .failure(error)
            }
        }
        try outcome.get()
        let image = try reader.container(scaledTo: (targetDimensions, targetContentMode))
        cached = (key, image)
        return image
    }
}
