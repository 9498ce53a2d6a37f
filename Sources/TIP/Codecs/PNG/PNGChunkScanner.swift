import Foundation

/// Walks a PNG's chunk headers as bytes arrive, without decompressing anything: finds the IHDR,
/// whether tRNS and eXIf come before the image data, where the image data starts and where IEND ends,
/// and an APNG's animation (``APNGLayout``: acTL, fcTL, fdAT).
///
/// Image-data chunks are skipped by their length, so scanning a whole file costs one step per chunk.
struct PNGChunkScanner: Sendable {
    /// The eight bytes every PNG starts with.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// The validated header, once the IHDR chunk has arrived.
    private(set) var header: PNGHeader?
    /// Whether a tRNS chunk precedes the image data.
    private(set) var hasTransparencyChunk = false
    /// The orientation an eXIf chunk before the image data asks for (`.up` when none).
    private(set) var orientation: ImageOrientation = .up
    /// Offset of the first IDAT chunk, once its header has arrived: every chunk libpng needs to set
    /// up decoding is then available.
    private(set) var imageDataOffset: Int?
    /// Offset just past the IEND chunk, once it has arrived: the image is complete.
    private(set) var endOffset: Int?
    /// The animation, when an acTL chunk came before the image data (an APNG).
    private(set) var animation: APNGLayout?
    /// Where the PLTE and tRNS chunks lie (offset of the chunk and its data length): an APNG's frames
    /// are decoded with them.
    private(set) var paletteChunks: [(offset: Int, length: Int)] = []

    /// Offset of the next chunk header to read.
    private var cursor = 0

    /// Whether every byte of the image, IEND included, has been scanned.
    var isComplete: Bool { endOffset != nil }

    /// Scans whatever new chunk headers `bytes` (everything received so far) holds. Throws
    /// ``ImageDecodingError/corruptData(_:)`` as soon as the data cannot be a PNG.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) throws(ImageDecodingError) {
        if cursor == 0 {
            let available = min(bytes.count, 8)
            for i in 0..<available where bytes[i] != PNGChunkScanner.signature[i] {
                throw .corruptData("not a PNG signature")
            }
            guard bytes.count >= 8 else { return }
            cursor = 8
        }
        while endOffset == nil, bytes.count - cursor >= 8 {
            let length = Int(PNGHeader.bigEndianUInt32(bytes, at: cursor))
            guard length <= 0x7FFF_FFFF else { throw .corruptData("chunk length \(length) out of range") }
            let type = PNGHeader.bigEndianUInt32(bytes, at: cursor + 4)
            let dataStart = cursor + 8
            let chunkEnd = dataStart + length + 4
            if header == nil {
                guard type == PNGChunkScanner.ihdr else { throw .corruptData("the first chunk is not IHDR") }
                guard length == 13 else { throw .corruptData("IHDR length \(length)") }
                guard bytes.count >= dataStart + 13 else { return }
                guard let parsed = PNGHeader(ihdr: UnsafeRawBufferPointer(rebasing: bytes[dataStart..<dataStart + 13]))
                else {
                    throw .corruptData("invalid IHDR")
                }
                header = parsed
            } else if imageDataOffset == nil {
                switch type {
                case PNGChunkScanner.idat:
                    imageDataOffset = cursor
                case PNGChunkScanner.trns:
                    hasTransparencyChunk = true
                    paletteChunks.append((cursor, length))
                case PNGChunkScanner.plte:
                    paletteChunks.append((cursor, length))
                case PNGChunkScanner.exif:
                    guard bytes.count >= dataStart + length else { return }
                    if let found = EXIFOrientationParser.orientation(
                        fromTIFF: UnsafeRawBufferPointer(rebasing: bytes[dataStart..<dataStart + length]))
                    {
                        orientation = found
                    }
                case PNGChunkScanner.actl:
                    guard bytes.count >= chunkEnd else { return }
                    if animation == nil, length == 8, APNGLayout.crcMatches(bytes, chunkAt: cursor, length: length) {
                        animation = APNGLayout(
                            animationControl: UnsafeRawBufferPointer(rebasing: bytes[dataStart..<dataStart + 8]))
                    } else {
                        animation?.fail("invalid or repeated acTL")
                    }
                case PNGChunkScanner.iend:
                    throw .corruptData("IEND before any image data")
                default:
                    break
                }
            }
            if animation != nil, header != nil, !scanAnimationChunk(bytes, type: type, length: length) { return }
            if type == PNGChunkScanner.iend {
                guard bytes.count >= chunkEnd else { return }
                endOffset = chunkEnd
                return
            }
            cursor = chunkEnd
        }
    }

    /// Records `type`'s part in the animation; false when more bytes are needed first.
    private mutating func scanAnimationChunk(_ bytes: UnsafeRawBufferPointer, type: UInt32, length: Int) -> Bool {
        guard let header else { return true }
        let dataStart = cursor + 8
        if type != PNGChunkScanner.idat && type != PNGChunkScanner.fdat {
            // The frame's data ended with the previous chunk: it is complete as soon as this header is in.
            animation?.closeFrame()
        }
        switch type {
        case PNGChunkScanner.fctl:
            guard bytes.count >= dataStart + length + 4 else { return false }
            guard APNGLayout.crcMatches(bytes, chunkAt: cursor, length: length) else {
                animation?.fail("fcTL CRC mismatch")
                return true
            }
            animation?.recordFrameControl(
                UnsafeRawBufferPointer(rebasing: bytes[dataStart..<dataStart + length]), canvas: header,
                beforeImageData: imageDataOffset == nil)
        case PNGChunkScanner.idat:
            animation?.recordImageData(at: cursor, length: length)
        case PNGChunkScanner.fdat:
            guard bytes.count >= dataStart + 4 else { return false }
            animation?.recordFrameData(
                at: cursor, length: length, sequence: Int(PNGHeader.bigEndianUInt32(bytes, at: dataStart)))
        default:
            break
        }
        return true
    }

    private static let ihdr: UInt32 = 0x4948_4452
    private static let idat: UInt32 = 0x4944_4154
    private static let trns: UInt32 = 0x7452_4E53
    private static let exif: UInt32 = 0x6558_4966
    private static let iend: UInt32 = 0x4945_4E44
    private static let plte: UInt32 = 0x504C_5445
    private static let actl: UInt32 = 0x6163_544C
    private static let fctl: UInt32 = 0x6663_544C
    private static let fdat: UInt32 = 0x6664_4154
}
