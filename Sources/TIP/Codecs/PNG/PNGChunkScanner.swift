import Foundation

/// Walks a PNG's chunk headers as bytes arrive, without decompressing anything: finds the IHDR,
/// whether tRNS and eXIf come before the image data, where the image data starts and where IEND ends.
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
                guard let parsed = PNGHeader(ihdr: UnsafeRawBufferPointer(rebasing: bytes[dataStart..<dataStart + 13])) else {
                    throw .corruptData("invalid IHDR")
                }
                header = parsed
            } else if imageDataOffset == nil {
                switch type {
                case PNGChunkScanner.idat:
                    imageDataOffset = cursor
                case PNGChunkScanner.trns:
                    hasTransparencyChunk = true
                case PNGChunkScanner.exif:
                    guard bytes.count >= dataStart + length else { return }
                    if let found = EXIFOrientationParser.orientation(fromTIFF: UnsafeRawBufferPointer(rebasing: bytes[dataStart..<dataStart + length])) {
                        orientation = found
                    }
                case PNGChunkScanner.iend:
                    throw .corruptData("IEND before any image data")
                default:
                    break
                }
            }
            if type == PNGChunkScanner.iend {
                guard bytes.count >= chunkEnd else { return }
                endOffset = chunkEnd
                return
            }
            cursor = chunkEnd
        }
    }

    private static let ihdr: UInt32 = 0x4948_4452
    private static let idat: UInt32 = 0x4944_4154
    private static let trns: UInt32 = 0x7452_4E53
    private static let exif: UInt32 = 0x6558_4966
    private static let iend: UInt32 = 0x4945_4E44
}
