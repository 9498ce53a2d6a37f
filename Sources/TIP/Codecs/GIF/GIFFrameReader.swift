import CGIF
import Foundation

/// Decodes GIF bytes with giflib's record-level API and composites every frame on the logical
/// screen (disposal methods, transparency, local and global colour tables, interlacing, clipping).
///
/// ```swift
/// let result = try GIFFrameReader.read(bytes, options: options)
/// ```
///
/// The record-level API (rather than `DGifSlurp`) lets each frame descriptor be checked before any
/// pixel is decoded and keeps only one canvas plus one row in memory. Interlaced frames are
/// de-interlaced here (`DGifGetLine` returns rows in stream order). Stateless; callable from any thread.
enum GIFFrameReader {
    /// What a read produced.
    struct Result {
        /// Composited frames at the requested output size (at least one).
        var frames: [Bitmap]
        /// Seconds per frame (see ``GIFFrameTiming``).
        var durations: [TimeInterval]
        /// NETSCAPE2.0 / ANIMEXTS1.0 loop count (0 = forever), or
        /// ``GIFFrameTiming/loopCountWithoutLoopBlock`` when the file has none.
        var loopCount: Int
        /// True when the trailer was reached with no error: every frame is here.
        var isComplete: Bool
    }

    /// Decoded frames may total at most this multiple of `maximumPixelCount` pixels (each frame
    /// counts its canvas or output size, whichever is larger, plus its own rectangle); decoding
    /// stops there and returns the frames so far as a partial image.
    static let totalPixelBudgetMultiple = 2

    /// Reads `bytes`, stopping after `maximumFrames` frames. Throws when no frame could be
    /// decoded: ``ImageDecodingError/dimensionsTooLarge(width:height:maximumPixelCount:)`` for a
    /// hostile logical screen, `truncatedData` when the data ends first, `corruptData` otherwise.
    static func read(_ bytes: UnsafeRawBufferPointer, options: ImageDecodingOptions, maximumFrames: Int = .max) throws(ImageDecodingError) -> Result {
        guard !bytes.isEmpty else { throw .emptyData }
        let source = UnsafeMutablePointer<GIFMemorySource>.allocate(capacity: 1)
        source.initialize(to: GIFMemorySource(base: bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), count: bytes.count))
        defer { source.deallocate() }
        var openError: Int32 = 0
        guard let gif = DGifOpen(source, gifReadFromMemory, &openError) else {
            switch openError {
            case D_GIF_ERR_NOT_GIF_FILE: throw .unrecognizedFormat
            case D_GIF_ERR_READ_FAILED: throw .truncatedData
            default: throw .corruptData(gifErrorText(openError))
            }
        }
        defer {
            var closeError: Int32 = 0
            DGifCloseFile(gif, &closeError)
        }
        let width = Int(gif.pointee.SWidth), height = Int(gif.pointee.SHeight)
        try options.checkDimensions(width: width, height: height)
        var reader = Reader(gif: gif, width: width, height: height, options: options, maximumFrames: maximumFrames)
        return try reader.run()
    }

    /// The state of one read. Owns nothing giflib owns.
    private struct Reader {
        let gif: UnsafeMutablePointer<GifFileType>
        let canvas: GIFCanvas
        let output: (width: Int, height: Int)
        let options: ImageDecodingOptions
        let maximumFrames: Int
        let pixelBudget: Int
        var pixelsUsed = 0

        var frames: [Bitmap] = []
        var durations: [TimeInterval] = []
        var loopCount = GIFFrameTiming.loopCountWithoutLoopBlock

        // Graphics control extension for the next image.
        var disposal = 0
        var delay = 0
        var transparentIndex = -1
        // What the previous frame asked to be done before the next one.
        var previousDisposal = 0
        var previousRect = (left: 0, top: 0, width: 0, height: 0)

        init(gif: UnsafeMutablePointer<GifFileType>, width: Int, height: Int, options: ImageDecodingOptions, maximumFrames: Int) {
            self.gif = gif
            self.canvas = GIFCanvas(width: width, height: height)
            self.output = options.outputDimensions(width: width, height: height)
            self.options = options
            self.maximumFrames = maximumFrames
            let (budget, overflow) = options.maximumPixelCount.multipliedReportingOverflow(by: GIFFrameReader.totalPixelBudgetMultiple)
            self.pixelBudget = overflow ? Int.max : budget
        }

        /// Why reading stopped early.
        enum Stop: Error {
            case giflib(Int32)
            case corrupt(String)
            case budget
        }

        mutating func run() throws(ImageDecodingError) -> Result {
            var complete = false
            do {
                complete = try readRecords()
            } catch {
                if frames.isEmpty {
                    switch error {
                    case .giflib(D_GIF_ERR_READ_FAILED): throw .truncatedData
                    case .giflib(let code): throw .corruptData(gifErrorText(code))
                    case .corrupt(let text): throw .corruptData(text)
                    case .budget: throw .dimensionsTooLarge(width: canvas.width, height: canvas.height, maximumPixelCount: options.maximumPixelCount)
                    }
                }
            }
            return Result(frames: frames, durations: durations, loopCount: loopCount, isComplete: complete)
        }

        /// Reads records up to the trailer (true) or `maximumFrames` (false).
        private mutating func readRecords() throws(Stop) -> Bool {
            while true {
                var type = UNDEFINED_RECORD_TYPE
                guard DGifGetRecordType(gif, &type) == GIF_OK else { throw .giflib(gif.pointee.Error) }
                switch type {
                case IMAGE_DESC_RECORD_TYPE:
                    if frames.count >= maximumFrames { return false }
                    try readFrame()
                case EXTENSION_RECORD_TYPE:
                    try readExtension()
                case TERMINATE_RECORD_TYPE:
                    return true
                default:
                    throw .corrupt("unexpected record")
                }
            }
        }

        private mutating func readExtension() throws(Stop) {
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

        private mutating func readFrame() throws(Stop) {
            guard DGifGetImageDesc(gif) == GIF_OK else { throw .giflib(gif.pointee.Error) }
            let desc = gif.pointee.Image
            let left = Int(desc.Left), top = Int(desc.Top), w = Int(desc.Width), h = Int(desc.Height)
            guard w >= 0, h >= 0, w <= 65535, h <= 65535 else { throw .corrupt("invalid frame size \(w)x\(h)") }
            let frameArea = w * h
            guard frameArea <= options.maximumPixelCount else { throw .corrupt("frame \(w)x\(h) exceeds the pixel limit") }
            let cost = max(canvas.width * canvas.height, output.width * output.height) + frameArea
            guard pixelsUsed <= pixelBudget - cost else { throw .budget }
            pixelsUsed += cost

            switch previousDisposal {
            case 2: canvas.clear(left: previousRect.left, top: previousRect.top, width: previousRect.width, height: previousRect.height)
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
                try decodeRows(left: left, top: top, width: w, height: h, interlaced: desc.Interlace, palette: palette)
            } else {
                try skipRows()
            }

            guard var bitmap = canvas.makeBitmap() else { throw .corrupt("out of memory") }
            if output.width != canvas.width || output.height != canvas.height {
                bitmap = Resampler.resample(bitmap, width: output.width, height: output.height, quality: options.interpolationQuality)
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
        private func decodeRows(left: Int, top: Int, width w: Int, height h: Int, interlaced: Bool, palette: [UInt32]) throws(Stop) {
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
        private func skipRows() throws(Stop) {
            var codeSize: Int32 = 0
            var block: UnsafeMutablePointer<GifByteType>?
            guard DGifGetCode(gif, &codeSize, &block) == GIF_OK else { throw .giflib(gif.pointee.Error) }
            while block != nil {
                guard DGifGetCodeNext(gif, &block) == GIF_OK else { throw .giflib(gif.pointee.Error) }
            }
        }
    }
}

extension GIFFrameReader {
    /// Reads the first `length` bytes of `data` (all of it when nil) into an image container: one
    /// frame gives a static image, more an animation; `isPartial` when the trailer was not reached.
    static func container(_ data: Data, length: Int? = nil, options: ImageDecodingOptions, maximumFrames: Int = .max) throws(ImageDecodingError) -> ImageContainer {
        guard !data.isEmpty else { throw .emptyData }
        let outcome: Swift.Result<Result, ImageDecodingError> = data.withUnsafeBytes { raw in
            let bytes = UnsafeRawBufferPointer(rebasing: raw[0..<min(raw.count, length ?? raw.count)])
            do throws(ImageDecodingError) {
                return .success(try read(bytes, options: options, maximumFrames: maximumFrames))
            } catch {
                return .failure(error)
            }
        }
        let result = try outcome.get()
        if result.frames.count == 1 {
            return ImageContainer(image: result.frames[0], isPartial: !result.isComplete)
        }
        guard let container = ImageContainer(animatedFrames: result.frames, frameDurations: result.durations,
                                             loopCount: result.loopCount, isPartial: !result.isComplete) else {
            throw .truncatedData
        }
        return container
    }
}
