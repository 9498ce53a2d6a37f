import CPNG
import Foundation

/// Decodes an APNG's frames and composites them: each frame's data is rewritten as a stand-alone PNG
/// (the image header with the frame's size, the palette chunks, the frame's data as `IDAT` chunks
/// with fresh CRCs after the original `fdAT` CRCs are checked) and decoded through the still-image
/// path (the libdeflate fast path, else libpng); frames are drawn on an ``AnimationCanvas`` with
/// their dispose (`none`, `background`, `previous`) and blend (`source`, `over`) operations.
///
/// ```swift
/// let image = APNGFrameDecoder.container(bytes, scanner: scanner, options: options)   // one shot
/// let decoder = APNGFrameDecoder(header: header, orientation: .up, options: options, scalesFrames: false)
/// decoder.advance(bytes, scanner: scanner)
/// ```
///
/// Frames come out `rgba8Premultiplied` at canvas size, upright (or the options' output size when
/// `scalesFrames`), with TIP's delays and the `acTL` play count as the loop count (0: forever). A
/// frame that fails to decode ends the animation there (the frames before it are kept, partial);
/// decoding also stops once the frames as kept exceed ``AnimationCanvas/totalPixelBudgetMultiple`` x
/// `maximumPixelCount` pixels (or the frames worked through a larger multiple: ``AnimationPixelBudget``).
/// Not thread-safe: one decoder serves one decode or one context.
final class APNGFrameDecoder {
    /// Composited frames so far.
    private(set) var frames: [Bitmap] = []
    /// Seconds per frame.
    private(set) var durations: [TimeInterval] = []
    /// True once a frame failed or the pixel budget ran out: no further frame is decoded.
    private(set) var isStopped = false
    /// Why decoding stopped.
    private(set) var stopError: ImageDecodingError?

    private let header: PNGHeader
    private let orientation: ImageOrientation
    private let options: ImageDecodingOptions
    private let scalesFrames: Bool
    private let canvas: AnimationCanvas
    private let output: (width: Int, height: Int)
    private var budget: AnimationPixelBudget
    private var previous: APNGLayout.FrameControl?
    /// The rewritten stand-alone PNG of the frame being decoded (reused).
    private var stream: [UInt8] = []

    /// A decoder for an image whose header is `header` (already checked against the options' limits),
    /// turning each frame upright for `orientation` (an eXIf chunk's).
    init(header: PNGHeader, orientation: ImageOrientation, options: ImageDecodingOptions, scalesFrames: Bool) {
        self.header = header
        self.orientation = orientation
        self.options = options
        self.scalesFrames = scalesFrames
        canvas = AnimationCanvas(width: header.width, height: header.height)
        let upright = orientation.swapsDimensions ? (header.height, header.width) : (header.width, header.height)
        output = scalesFrames ? options.outputDimensions(width: upright.0, height: upright.1) : upright
        budget = AnimationPixelBudget(maximumPixelCount: options.maximumPixelCount)
    }

    /// Decodes the complete frames of `scanner.animation` not decoded yet; `bytes` is everything the
    /// scanner has scanned (it may have moved since the last call).
    func advance(_ bytes: UnsafeRawBufferPointer, scanner: PNGChunkScanner) {
        guard let animation = scanner.animation else { return }
        let complete = animation.completeFrameCount
        while !isStopped, frames.count < complete {
            let frame = animation.frames[frames.count]
            do {
                try decode(frame, bytes: bytes, scanner: scanner)
            } catch {
                isStopped = true
                stopError = error
            }
        }
    }

    private func decode(_ frame: APNGLayout.Frame, bytes: UnsafeRawBufferPointer, scanner: PNGChunkScanner)
        throws(ImageDecodingError)
    {
        let control = frame.control
        let kept = output.width * output.height
        let work = max(canvas.width * canvas.height, kept) + control.width * control.height
        guard budget.take(kept: kept, work: work) else {
            throw .dimensionsTooLarge(
                width: canvas.width, height: canvas.height, maximumPixelCount: options.maximumPixelCount)
        }
        let frameHeader = try rewrite(frame, bytes: bytes, scanner: scanner)
        let decoded: Result<(bitmap: Bitmap, isPartial: Bool), ImageDecodingError> = stream.withUnsafeBytes { raw in
            do throws(ImageDecodingError) {
                return .success(
                    try PNGDecoder.decodeCanvas(
                        raw, header: frameHeader, hasTransparencyChunk: scanner.hasTransparencyChunk,
                        isComplete: true))
            } catch {
                return .failure(error)
            }
        }
        let (bitmap, isPartial) = try decoded.get()
        guard !isPartial else { throw .corruptData("APNG frame \(frames.count + 1) is damaged") }

        // The previous frame's disposal, then this frame.
        if let previous {
            switch previous.disposeOp {
            case .none: break
            case .background:
                canvas.clear(left: previous.x, top: previous.y, width: previous.width, height: previous.height)
            case .previous: canvas.restore()
            }
        }
        switch control.disposeOp {
        case .previous where !frames.isEmpty: canvas.save()
        default: break
        }
        canvas.draw(bitmap, x: control.x, y: control.y, blendsOver: control.blendOp == .over)
        // The first frame's "previous" has nothing to go back to: it clears, as the specification says.
        previous =
            frames.isEmpty && control.disposeOp == .previous
            ? APNGLayout.FrameControl(
                width: control.width, height: control.height, x: control.x, y: control.y,
                disposeOp: .background, blendOp: control.blendOp, duration: control.duration)
            : control
        guard var composited = canvas.makeBitmap()?.applyingOrientation(orientation) else {
            throw .unsupported("out of memory")
        }
        if output.width != composited.width || output.height != composited.height {
            composited = Resampler.resample(
                composited, width: output.width, height: output.height, quality: options.interpolationQuality)
        }
        frames.append(composited)
        durations.append(control.duration)
    }

    /// Writes `frame` as a stand-alone PNG into `stream` and returns its header.
    private func rewrite(
        _ frame: APNGLayout.Frame, bytes: UnsafeRawBufferPointer,
        scanner: PNGChunkScanner
    ) throws(ImageDecodingError) -> PNGHeader {
        stream.removeAll(keepingCapacity: true)
        stream += PNGChunkScanner.signature
        var ihdr = [UInt8](repeating: 0, count: 13)
        ihdr.withUnsafeMutableBytes { raw in
            var writer = HeaderWriter(raw, littleEndian: false)
            writer.u32(frame.control.width)
            writer.u32(frame.control.height)
            writer.bytes([UInt8(header.bitDepth), header.colorType.rawValue, 0, 0, header.isInterlaced ? 1 : 0])
        }
        guard let frameHeader = ihdr.withUnsafeBytes({ PNGHeader(ihdr: $0) }) else {
            throw .corruptData("invalid frame header")
        }
        PNGChunk.append("IHDR", ihdr[...], to: &stream)
        for chunk in scanner.paletteChunks {
            let end = chunk.offset + 12 + chunk.length
            guard end <= bytes.count else { throw .truncatedData }
            stream += UnsafeRawBufferPointer(rebasing: bytes[chunk.offset..<end])
        }
        for chunk in frame.chunks {
            let end = chunk.offset + 12 + chunk.length
            guard end <= bytes.count else { throw .truncatedData }
            if !chunk.isFrameData {
                // IDAT: copied as it is (its CRC is checked by the decode).
                stream += UnsafeRawBufferPointer(rebasing: bytes[chunk.offset..<end])
                continue
            }
            guard APNGLayout.crcMatches(bytes, chunkAt: chunk.offset, length: chunk.length) else {
                throw .corruptData("fdAT CRC mismatch in frame \(frames.count + 1)")
            }
            let data = UnsafeRawBufferPointer(rebasing: bytes[(chunk.offset + 12)..<(chunk.offset + 8 + chunk.length)])
            PNGChunk.append("IDAT", data, to: &stream)
        }
        PNGChunk.append("IEND", [UInt8](), to: &stream)
        return frameHeader
    }

    /// The frames so far as a container (resampled to `sizing` when given), with the animation's loop
    /// count; `isPartial` unless every frame the file holds was decoded and the file is complete. Nil
    /// when no frame decoded.
    func container(
        animation: APNGLayout, isFileComplete: Bool,
        scaledTo sizing: (targetDimensions: CGSize, contentMode: ContentMode)?
    ) -> ImageContainer? {
        let isPartial = !isFileComplete || stopError != nil || frames.count < animation.frames.count
        guard
            let container = ImageContainer(
                animatedFrames: frames, frameDurations: durations, loopCount: animation.playCount,
                isPartial: isPartial)
        else { return nil }
        guard let sizing else { return container }
        return container.scaledToTargetDimensions(
            sizing.targetDimensions, contentMode: sizing.contentMode, quality: options.interpolationQuality)
    }

    /// Decodes every frame of a whole APNG at the options' target sizing. Nil when the first frame
    /// cannot be decoded: the caller then shows the default image.
    static func container(_ bytes: UnsafeRawBufferPointer, scanner: PNGChunkScanner, options: ImageDecodingOptions)
        -> ImageContainer?
    {
        guard let header = scanner.header, let animation = scanner.animation else { return nil }
        let decoder = APNGFrameDecoder(
            header: header, orientation: scanner.orientation, options: options, scalesFrames: true)
        decoder.advance(bytes, scanner: scanner)
        return decoder.container(animation: animation, isFileComplete: scanner.isComplete, scaledTo: nil)
    }
}
