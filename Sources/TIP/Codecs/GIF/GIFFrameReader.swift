import CGIF
import Foundation

/// Decodes GIF bytes with giflib's record-level API and composites every frame on the logical
/// screen (disposal methods, transparency, local and global colour tables, interlacing, clipping).
///
/// ```swift
/// let image = try GIFFrameReader.container(data, options: options)          // one shot
/// let reader = GIFFrameReader(options: options, scalesFrames: false)        // incremental
/// try data.withUnsafeBytes { try reader.advance($0, to: endOfLastCompleteFrame) }
/// ```
///
/// The record-level API (rather than `DGifSlurp`, which in giflib 5.2.1 also de-interlaces) lets
/// each frame descriptor be checked before any pixel is decoded and keeps only one canvas plus one
/// row in memory. Interlaced frames are de-interlaced here (`DGifGetLine` returns rows in stream
/// order). A reader can be advanced over a growing buffer: giflib reads exactly what each record
/// needs and keeps no pointer into the bytes, so decoding resumes where it stopped as long as each
/// stop is at a record boundary (the end of a complete frame).
///
/// Not thread-safe: one reader serves one decode or one context.
final class GIFFrameReader {
    /// Decoded frames may total at most this multiple of `maximumPixelCount` pixels (the rule every
    /// animated format follows: ``AnimationCanvas/totalPixelBudgetMultiple``).
    static let totalPixelBudgetMultiple = AnimationCanvas.totalPixelBudgetMultiple

    /// Composited frames so far, at the options' output size when `scalesFrames`, else canvas size.
    private(set) var frames: [Bitmap] = []
    /// Seconds per frame (see ``GIFFrameTiming``).
    private(set) var durations: [TimeInterval] = []
    /// NETSCAPE2.0 / ANIMEXTS1.0 loop count (0 = forever), or
    /// ``GIFFrameTiming/loopCountWithoutLoopBlock`` when the file has none (so far).
    private(set) var loopCount = GIFFrameTiming.loopCountWithoutLoopBlock
    /// True once the trailer was reached with no error: every frame is here.
    private(set) var isComplete = false
    /// True once decoding can not go further (trailer, damage, or the pixel budget).
    private(set) var isStopped = false

    private let options: ImageDecodingOptions
    private let scalesFrames: Bool
    private let source: UnsafeMutablePointer<GIFMemorySource>
    private var gif: UnsafeMutablePointer<GifFileType>?
    private var canvas: AnimationCanvas?
    private var output = (width: 0, height: 0)
    private var budget: AnimationPixelBudget
    /// Why decoding stopped, kept to be thrown when no frame was decoded.
    private var stopError: ImageDecodingError?

    // Graphics control extension for the next image.
    private var disposal = 0
    private var delay = 0
    private var transparentIndex = -1
    // What the previous frame asked to be done before the next one.
    private var previousDisposal = 0
    private var previousRect = (left: 0, top: 0, width: 0, height: 0)

    /// A reader applying `options` (limits, and the output size when `scalesFrames`).
    init(options: ImageDecodingOptions, scalesFrames: Bool) {
        self.options = options
        self.scalesFrames = scalesFrames
        source = .allocate(capacity: 1)
        source.initialize(to: GIFMemorySource(base: nil, count: 0))
        budget = AnimationPixelBudget(maximumPixelCount: options.maximumPixelCount)
    }

    deinit {
        if let gif {
            var closeError: Int32 = 0
            DGifCloseFile(gif, &closeError)
        }
        source.deallocate()
    }

    /// Decodes the records in `bytes[offset..<limit]`, where `bytes` holds the whole GIF received so
    /// far (it may move between calls) and `limit` is the end of the trailer or of a complete frame.
    /// Throws when decoding stopped with no frame: `dimensionsTooLarge` for a hostile logical
    /// screen, `truncatedData` when the data ends first, `corruptData` otherwise.
    func advance(_ bytes: UnsafeRawBufferPointer, to limit: Int) throws(ImageDecodingError) {
        source.pointee = GIFMemorySource(
            base: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self),
            count: min(limit, bytes.count), offset: source.pointee.offset)
        if !isStopped {
            do {
                try open()
                try readRecords()
            } catch {
                stop(error)
            }
        }
        if frames.isEmpty, isStopped {
            throw stopError ?? .truncatedData
        }
    }

    /// Why reading stopped early.
    private enum Stop: Error {
        case giflib(Int32)
        case corrupt(String)
        case budget
        case decoding(ImageDecodingError)
    }

    private func stop(_ reason: Stop) {
        isStopped = true
        switch reason {
        case .giflib(D_GIF_ERR_READ_FAILED): stopError = .truncatedData
        case .giflib(let code): stopError = .corruptData(gifErrorText(code))
        case .corrupt(let text): stopError = .corruptData(text)
        case .budget:
            stopError = .dimensionsTooLarge(
                width: canvas?.width ?? 0, height: canvas?.height ?? 0, maximumPixelCount: options.maximumPixelCount)
        case .decoding(let error): stopError = error
        }
    }

    private func open() throws(Stop) {
        guard gif == nil else { return }
        guard source.pointee.count > 0 else { throw .decoding(.emptyData) }
        var openError: Int32 = 0
        guard let opened = DGifOpen(source, gifReadFromMemory, &openError) else {
            switch openError {
            case D_GIF_ERR_NOT_GIF_FILE: throw .decoding(.unrecognizedFormat)
            // giflib says "no screen descriptor" too when the descriptor or the global colour table runs past the
            // data: that is a file cut short.
            case D_GIF_ERR_NO_SCRN_DSCR where source.pointee.offset >= source.pointee.count:
                throw .decoding(.truncatedData)
            default: throw .giflib(openError)
            }
        }
        gif = opened
        let width = Int(opened.pointee.SWidth), height = Int(opened.pointee.SHeight)
        do {
            try options.checkDimensions(width: width, height: height)
        } catch {
            throw .decoding(error)
        }
        canvas = AnimationCanvas(width: width, height: height)
        output = scalesFrames ? options.outputDimensions(width: width, height: height) : (width, height)
    }

    /// Reads records until the trailer or the end of the available bytes.
    private func readRecords() throws(Stop) {
        guard let gif else { return }
        while source.pointee.offset < source.pointee.count {
            var type = UNDEFINED_RECORD_TYPE
            guard DGifGetRecordType(gif, &type) == GIF_OK else { throw .giflib(gif.pointee.Error) }
            switch type {
            case IMAGE_DESC_RECORD_TYPE:
                try readFrame(gif)
            case EXTENSION_RECORD_TYPE:
                try readExtension(gif)
            case TERMINATE_RECORD_TYPE:
                isComplete = true
                isStopped = true
                return
            default:
                throw .corrupt("unexpected record")
            }
        }
    }

    private func readExtension(_ gif: UnsafeMutablePointer<GifFileType>) throws(Stop) {
        var code: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetExtension(gif, &code, &block) == GIF_OK else { throw .giflib(gif.pointee.Error) }
        var isLoopBlock = false
        if let first = block {
            let length = Int(first[0])
            if code == GRAPHICS_EXT_FUNC_CODE, length >= 4 {
                let packed = Int(first[1])
                disposal = (packed >> 2) & 7
                delay = Int(first[2]) | Int(first[3]) << 8
                transparentIndex = packed & 1 != 0 ? Int(first[4]) : -1
            } else if code == APPLICATION_EXT_FUNC_CODE, length == 11 {
                let name = Array(UnsafeBufferPointer(start: first + 1, count: 11))
                isLoopBlock = name == Array("NETSCAPE2.0".utf8) || name == Array("ANIMEXTS1.0".utf8)
            }
        }
        while block != nil {
            guard DGifGetExtensionNext(gif, &block) == GIF_OK else { throw .giflib(gif.pointee.Error) }
            if isLoopBlock, let sub = block, sub[0] >= 3, sub[1] == 1 {
                loopCount = Int(sub[2]) | Int(sub[3]) << 8
                isLoopBlock = false
            }
        }
    }

    private func readFrame(_ gif: UnsafeMutablePointer<GifFileType>) throws(Stop) {
        guard let canvas else { return }
        guard DGifGetImageDesc(gif) == GIF_OK else { throw .giflib(gif.pointee.Error) }
        let desc = gif.pointee.Image
        let left = Int(desc.Left), top = Int(desc.Top), w = Int(desc.Width), h = Int(desc.Height)
        guard w >= 0, h >= 0, w <= 65535, h <= 65535 else { throw .corrupt("invalid frame size \(w)x\(h)") }
        let frameArea = w * h
        guard frameArea <= options.maximumPixelCount else { throw .corrupt("frame \(w)x\(h) exceeds the pixel limit") }
        let kept = output.width * output.height
        guard budget.take(kept: kept, work: max(canvas.width * canvas.height, kept) + frameArea) else {
            throw .budget
        }

        switch previousDisposal {
        case 2:
            canvas.clear(
                left: previousRect.left, top: previousRect.top, width: previousRect.width, height: previousRect.height)
        case 3: canvas.restore()
        default: break
        }
        if disposal == 3 { canvas.save() }

        guard let colorMap = desc.ColorMap ?? gif.pointee.SColorMap else { throw .corrupt("frame has no colour table") }
        var palette = [UInt32](repeating: 0, count: 256)
        let colorCount = min(256, max(0, Int(colorMap.pointee.ColorCount)))
        if let colors = colorMap.pointee.Colors {
            for i in 0..<colorCount {
                let c = colors[i]
                let word = UInt32(c.Red) | UInt32(c.Green) << 8 | UInt32(c.Blue) << 16 | 0xFF00_0000
                palette[i] = word.littleEndian
            }
        }
        if transparentIndex >= 0 { palette[transparentIndex] = 0 }

        if canvas.clip(left: left, top: top, width: w, height: h) != nil {
            try decodeRows(
                gif, canvas: canvas, left: left, top: top, width: w, height: h, interlaced: desc.Interlace,
                palette: palette)
        } else {
            try skipRows(gif)
        }

        guard var bitmap = canvas.makeBitmap() else { throw .corrupt("out of memory") }
        if output.width != canvas.width || output.height != canvas.height {
            bitmap = Resampler.resample(
                bitmap, width: output.width, height: output.height, quality: options.interpolationQuality)
        }
        frames.append(bitmap)
        durations.append(GIFFrameTiming.duration(centiseconds: delay))
        previousDisposal = disposal
        previousRect = (left, top, w, h)
        disposal = 0
        delay = 0
        transparentIndex = -1
    }

    /// Decodes every row of the frame (in stream order, mapped to canvas rows for interlaced
    /// frames) and draws the visible part.
    private func decodeRows(
        _ gif: UnsafeMutablePointer<GifFileType>, canvas: AnimationCanvas, left: Int, top: Int, width w: Int,
        height h: Int, interlaced: Bool, palette: [UInt32]
    ) throws(Stop) {
        let line = UnsafeMutablePointer<GifPixelType>.allocate(capacity: w)
        defer { line.deallocate() }
        line.initialize(repeating: 0, count: w)
        let starts = [0, 4, 2, 1], steps = [8, 8, 4, 2]
        var pass = 0, y = 0
        try palette.withUnsafeBufferPointer { (table) throws(Stop) in
            guard let table = table.baseAddress else { return }
            for row in 0..<h {
                guard DGifGetLine(gif, line, Int32(w)) == GIF_OK else { throw .giflib(gif.pointee.Error) }
                let target = interlaced ? y : row
                canvas.drawRow(line, count: w, x: left, y: top + target, palette: table)
                if interlaced {
                    y += steps[pass]
                    while y >= h && pass < 3 {
                        pass += 1
                        y = starts[pass]
                    }
                }
            }
        }
    }

    /// Skips the compressed data of a frame with nothing to draw.
    private func skipRows(_ gif: UnsafeMutablePointer<GifFileType>) throws(Stop) {
        var codeSize: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetCode(gif, &codeSize, &block) == GIF_OK else { throw .giflib(gif.pointee.Error) }
        while block != nil {
            guard DGifGetCodeNext(gif, &block) == GIF_OK else { throw .giflib(gif.pointee.Error) }
        }
    }
}

extension GIFFrameReader {
    /// Decodes the first `length` bytes of `data` (all of it when nil) at the options' target
    /// sizing: one frame gives a static image, more an animation; `isPartial` when the trailer was
    /// not reached.
    static func container(_ data: Data, length: Int? = nil, options: ImageDecodingOptions) throws(ImageDecodingError)
        -> ImageContainer
    {
        guard !data.isEmpty else { throw .emptyData }
        let reader = GIFFrameReader(options: options, scalesFrames: true)
        let outcome: Swift.Result<Void, ImageDecodingError> = data.withUnsafeBytes { raw in
            do throws(ImageDecodingError) {
                return .success(try reader.advance(raw, to: length ?? raw.count))
            } catch {
                return .failure(error)
            }
        }
        try outcome.get()
        return try reader.container(scaledTo: nil)
    }

    /// The frames so far as a container, resampled to `sizing` when given (the output size is
    /// computed from the canvas). Throws `truncatedData` when there is no frame yet.
    func container(scaledTo sizing: (targetDimensions: CGSize, contentMode: ContentMode)?) throws(ImageDecodingError)
        -> ImageContainer
    {
        guard
            let container = ImageContainer(
                animatedFrames: frames, frameDurations: durations, loopCount: loopCount,
                isPartial: !isComplete)
        else { throw stopError ?? .truncatedData }
        guard let sizing else { return container }
        return container.scaledToTargetDimensions(
            sizing.targetDimensions, contentMode: sizing.contentMode, quality: options.interpolationQuality)
    }
}
