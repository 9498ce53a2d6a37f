import Foundation

/// Walks the block structure of a GIF as its bytes arrive, without decoding any LZW data: header,
/// logical screen descriptor, colour tables, extensions and their sub-blocks, image descriptors
/// with their compressed sub-blocks, and the trailer.
///
/// ```swift
/// var scanner = GIFBlockScanner()
/// let event = data.withUnsafeBytes { scanner.scan($0) }   // all bytes so far, every time
/// ```
///
/// Resumable: each call continues where the last one stopped, so scanning costs O(bytes) in
/// total (a sub-block is looked at once it is whole, at most 256 bytes later). Not thread-safe.
struct GIFBlockScanner {
    /// The furthest point a scan reached.
    enum Event: Int, Comparable {
        /// Nothing new.
        case none = 0
        /// The logical screen descriptor has arrived: ``width`` and ``height`` are known.
        case header
        /// At least one more frame's compressed data is complete.
        case frame
        /// The trailer has arrived.
        case trailer

        static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private enum Phase {
        case header
        case skip(remaining: Int, thenImageData: Bool)
        case blockStart
        case extensionLabel
        case subBlocks(isImage: Bool, isApplication: Bool, index: Int)
        case imageDescriptor
        case codeSize
        case finished
    }

    private var phase = Phase.header
    /// Bytes consumed so far.
    private(set) var position = 0
    /// Logical screen width in pixels (0 until the header arrived).
    private(set) var width = 0
    /// Logical screen height in pixels (0 until the header arrived).
    private(set) var height = 0
    /// Whether the logical screen descriptor has arrived.
    private(set) var hasHeader = false
    /// Frames whose compressed data is complete.
    private(set) var completeFrameCount = 0
    /// The offset just past the last complete frame (0 when none).
    private(set) var endOfLastCompleteFrame = 0
    /// Whether a NETSCAPE2.0 or ANIMEXTS1.0 loop block was seen.
    private(set) var hasLoopBlock = false
    /// Whether the trailer arrived.
    private(set) var hasTrailer = false
    /// Why the data can not be a GIF (nil while it still can).
    private(set) var failure: String?

    /// Continues scanning `bytes`, which holds every byte received so far (a growing prefix).
    mutating func scan(_ bytes: UnsafeRawBufferPointer) -> Event {
        var event = Event.none
        let count = bytes.count
        while failure == nil {
            let available = count - position
            switch phase {
            case .finished:
                return event
            case .header:
                guard available >= 13 else { return event }
                let signature = Array(bytes[0..<6])
                guard signature == Array("GIF89a".utf8) || signature == Array("GIF87a".utf8) else {
                    failure = "not a GIF"
                    return event
                }
                width = Int(bytes[6]) | Int(bytes[7]) << 8
                height = Int(bytes[8]) | Int(bytes[9]) << 8
                let flags = Int(bytes[10])
                position = 13
                hasHeader = true
                event = max(event, .header)
                phase = flags & 0x80 != 0 ? .skip(remaining: 3 << ((flags & 7) + 1), thenImageData: false) : .blockStart
            case .skip(let remaining, let thenImageData):
                let n = min(remaining, available)
                position += n
                if n < remaining {
                    phase = .skip(remaining: remaining - n, thenImageData: thenImageData)
                    return event
                }
                phase = thenImageData ? .codeSize : .blockStart
            case .blockStart:
                guard available >= 1 else { return event }
                let introducer = bytes[position]
                position += 1
                switch introducer {
                case 0x21: phase = .extensionLabel
                case 0x2C: phase = .imageDescriptor
                case 0x3B:
                    hasTrailer = true
                    phase = .finished
                    return max(event, .trailer)
                default:
                    failure = "unexpected block 0x\(String(introducer, radix: 16)) at offset \(position - 1)"
                }
            case .extensionLabel:
                guard available >= 1 else { return event }
                let label = bytes[position]
                position += 1
                phase = .subBlocks(isImage: false, isApplication: label == 0xFF, index: 0)
            case .imageDescriptor:
                guard available >= 9 else { return event }
                let flags = Int(bytes[position + 8])
                position += 9
                phase = .skip(remaining: flags & 0x80 != 0 ? 3 << ((flags & 7) + 1) : 0, thenImageData: true)
            case .codeSize:
                guard available >= 1 else { return event }
                position += 1
                phase = .subBlocks(isImage: true, isApplication: false, index: 0)
            case .subBlocks(let isImage, let isApplication, let index):
                guard available >= 1 else { return event }
                let size = Int(bytes[position])
                guard available >= 1 + size else { return event }
                if size == 0 {
                    position += 1
                    phase = .blockStart
                    if isImage {
                        completeFrameCount += 1
                        endOfLastCompleteFrame = position
                        event = max(event, .frame)
                    }
                    continue
                }
                if isApplication, index == 0, size == 11 {
                    let name = Array(bytes[(position + 1)..<(position + 12)])
                    if name == Array("NETSCAPE2.0".utf8) || name == Array("ANIMEXTS1.0".utf8) { hasLoopBlock = true }
                }
                position += 1 + size
                phase = .subBlocks(isImage: isImage, isApplication: isApplication, index: index + 1)
            }
        }
        return event
    }
}
