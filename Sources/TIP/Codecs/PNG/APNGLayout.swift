import CPNG
import Foundation

/// The animation an APNG's chunks describe, collected by ``PNGChunkScanner`` as it walks them: the
/// `acTL` chunk (frame and play counts), each frame's `fcTL` (rectangle, delay, dispose and blend
/// operations) and where its compressed data lies (the `IDAT` chunks for a default image that is the
/// first frame, `fdAT` chunks otherwise).
///
/// ```swift
/// if let animation = scanner.animation, animation.isUsable {
///     print(animation.frames.count, animation.playCount)
/// }
/// ```
///
/// Any violation of the APNG rules (sequence numbers out of order, a frame outside the canvas, a bad
/// control-chunk CRC, data without a frame) sets ``failure``: decoders then show the default image, as
/// the APNG specification asks. Frames beyond the declared count are ignored.
struct APNGLayout: Sendable {
    /// What happens to a frame's rectangle before the next frame is drawn.
    enum DisposeOp: UInt8, Sendable {
        /// Left as it is.
        case none = 0
        /// Cleared to transparent black.
        case background = 1
        /// Restored to what it was before the frame.
        case previous = 2
    }

    /// How a frame is drawn onto the canvas.
    enum BlendOp: UInt8, Sendable {
        /// Its pixels replace the rectangle's.
        case source = 0
        /// Composited over the rectangle (alpha blending).
        case over = 1
    }

    /// One frame's `fcTL`.
    struct FrameControl: Equatable, Sendable {
        let width: Int
        let height: Int
        let x: Int
        let y: Int
        let disposeOp: DisposeOp
        let blendOp: BlendOp
        /// Seconds the frame is shown, TIP's rule applied (``AnimationFrameTiming``).
        let duration: TimeInterval
    }

    /// A chunk holding part of a frame's compressed data.
    struct DataChunk: Equatable, Sendable {
        /// Offset of the chunk (its length field) in the file.
        let offset: Int
        /// Its data length (an `fdAT`'s includes its 4-byte sequence number).
        let length: Int
        /// Whether it is an `fdAT` (else an `IDAT`).
        let isFrameData: Bool
    }

    /// One frame: its control and its data chunks.
    struct Frame: Equatable, Sendable {
        let control: FrameControl
        fileprivate(set) var chunks: [DataChunk] = []
        /// Whether every data chunk has arrived (a chunk of another kind followed them).
        fileprivate(set) var isComplete = false
    }

    /// Frames the `acTL` declares.
    let declaredFrameCount: Int
    /// How many times the animation plays (0: forever).
    let playCount: Int
    /// The frames seen so far, in order.
    private(set) var frames: [Frame] = []
    /// Why the animation cannot be shown, once known.
    private(set) var failure: String?
    /// Whether the default image (`IDAT`) is the first frame.
    private(set) var includesDefaultImage = false
    private var nextSequence = 0
    /// True between an `fcTL` before the image data and the end of the `IDAT` chunks.
    private var collectsImageData = false

    /// The `acTL` chunk's 8 data bytes.
    init?(animationControl bytes: UnsafeRawBufferPointer) {
        let reader = ByteReader(bytes, littleEndian: false)
        guard let frames = reader.u32(at: 0), let plays = reader.u32(at: 4), frames > 0, frames <= Int(Int32.max) else {
            return nil
        }
        declaredFrameCount = frames
        playCount = plays
    }

    /// Whether the animation can be shown: no failure and a first frame declared.
    var isUsable: Bool { failure == nil && !frames.isEmpty }

    /// Frames whose data is complete (they complete in order).
    var completeFrameCount: Int { frames.prefix { $0.isComplete }.count }

    /// Records an `fcTL` chunk (`chunk` is its data, CRC already checked) for a `canvas`-sized image.
    mutating func recordFrameControl(_ chunk: UnsafeRawBufferPointer, canvas: PNGHeader, beforeImageData: Bool) {
        guard failure == nil else { return }
        closeFrame()
        let reader = ByteReader(chunk, littleEndian: false)
        guard chunk.count == 26, let sequence = reader.u32(at: 0), let width = reader.u32(at: 4),
            let height = reader.u32(at: 8),
            let x = reader.u32(at: 12), let y = reader.u32(at: 16), let numerator = reader.u16(at: 20),
            let denominator = reader.u16(at: 22), let dispose = DisposeOp(rawValue: chunk[24]),
            let blend = BlendOp(rawValue: chunk[25])
        else { return fail("invalid fcTL") }
        guard sequence == nextSequence else {
            return fail("fcTL sequence number \(sequence), expected \(nextSequence)")
        }
        nextSequence += 1
        guard width > 0, height > 0, x + width <= canvas.width, y + height <= canvas.height else {
            return fail("frame \(width)x\(height) at \(x),\(y) outside the \(canvas.width)x\(canvas.height) canvas")
        }
        if beforeImageData {
            guard frames.isEmpty, x == 0, y == 0, width == canvas.width, height == canvas.height else {
                return fail("the default image's fcTL does not cover the canvas")
            }
            includesDefaultImage = true
            collectsImageData = true
        }
        guard frames.count < declaredFrameCount else { return }
        let seconds = Double(numerator) / Double(denominator == 0 ? 100 : denominator)
        frames.append(
            Frame(
                control: FrameControl(
                    width: width, height: height, x: x, y: y, disposeOp: dispose, blendOp: blend,
                    duration: AnimationFrameTiming.duration(seconds: seconds))))
    }

    /// Records an `IDAT` chunk starting at `offset` with `length` data bytes.
    mutating func recordImageData(at offset: Int, length: Int) {
        guard failure == nil, collectsImageData, let last = frames.indices.last else { return }
        frames[last].chunks.append(DataChunk(offset: offset, length: length, isFrameData: false))
    }

    /// Records an `fdAT` chunk starting at `offset` with `length` data bytes, whose first four (the
    /// sequence number) are `sequence`.
    mutating func recordFrameData(at offset: Int, length: Int, sequence: Int) {
        guard failure == nil else { return }
        guard sequence == nextSequence else {
            return fail("fdAT sequence number \(sequence), expected \(nextSequence)")
        }
        nextSequence += 1
        guard length > 4, !collectsImageData, let last = frames.indices.last, !frames[last].isComplete else {
            // Data of a frame past the declared count is skipped; anything else breaks the rules.
            if frames.count == declaredFrameCount && frames.last?.isComplete == true && length > 4 { return }
            return fail("fdAT without a frame")
        }
        frames[last].chunks.append(DataChunk(offset: offset, length: length, isFrameData: true))
    }

    /// A chunk that is not frame data arrived: the current frame's data is complete.
    mutating func closeFrame() {
        collectsImageData = false
        guard failure == nil, let last = frames.indices.last, !frames[last].isComplete else { return }
        guard !frames[last].chunks.isEmpty else { return fail("a frame without data") }
        frames[last].isComplete = true
    }

    /// Marks the animation unusable.
    mutating func fail(_ reason: String) {
        if failure == nil { failure = reason }
    }

    /// Whether the chunk at `offset` (its length field) with `length` data bytes has a correct CRC in `bytes`.
    static func crcMatches(_ bytes: UnsafeRawBufferPointer, chunkAt offset: Int, length: Int) -> Bool {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), offset + 12 + length <= bytes.count
        else { return false }
        let computed = tip_png_crc32(0, base + offset + 4, length + 4)
        return computed == PNGHeader.bigEndianUInt32(bytes, at: offset + 8 + length)
    }
}
