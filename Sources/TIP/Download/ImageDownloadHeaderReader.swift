import Foundation

/// Learns a download's image type and dimensions from its first bytes, without decoding the image:
/// the type from the catalogue's detection, then the header through the codec's incremental context,
/// which is fed only until the header is read. Confined to the downloader's queue.
final class ImageDownloadHeaderReader {
    private let catalogue: CodecCatalogue
    private var context: (any ImageDecoderContext)?
    private var gaveUp = false

    /// The detected type, once known.
    private(set) var imageType: ImageType?
    /// The dimensions, once the header was read; zero before.
    private(set) var dimensions: CGSize = .zero
    /// Whether the header says the image is animated (as far as it tells).
    private(set) var isAnimated = false

    init(catalogue: CodecCatalogue = .shared) {
        self.catalogue = catalogue
    }

    /// Whether the header has been read.
    var hasReadHeader: Bool { dimensions.width > 0 && dimensions.height > 0 }

    /// Looks at the body so far (`all`, asked for only until the type is known), of which `chunk` is the
    /// newest part.
    func consume(all body: @autoclosure () -> Data, chunk: Data, expectedLength: Int?) {
        guard !hasReadHeader, !gaveUp else { return }
        if context == nil {
            let all = body()
            guard let type = catalogue.detectImageType(all, isComplete: false) else {
                if all.count > 64 * 1024 { gaveUp = true }  // no codec recognises it; the members' decode will say why
                return
            }
            imageType = type
            guard let decoder = catalogue.codec(for: type)?.decoder else {
                gaveUp = true
                return
            }
            let made = decoder.makeContext(expectedLength: expectedLength, options: ImageDecodingOptions(readsHeaderOnly: true))
            context = made
            feed(all, into: made)
        } else if let context {
            feed(chunk, into: context)
        }
    }

    /// Bytes handed to the context at a time: once the header is read a context starts decoding pixels, so
    /// small slices keep that work to one slice (a whole 16 KiB chunk cost ~8x more per small JPEG).
    static let sliceSize = 1024

    private func feed(_ data: Data, into context: any ImageDecoderContext) {
        var offset = data.startIndex
        while offset < data.endIndex {
            let end = min(data.endIndex, offset + Self.sliceSize)
            do {
                _ = try context.append(Data(data[offset..<end]))
            } catch {
                gaveUp = true
                self.context = nil
                return
            }
            if context.dimensions.width > 0 && context.dimensions.height > 0 {
                dimensions = context.dimensions
                isAnimated = context.isAnimated
                self.context = nil  // the header is all this reader wants; the members decode the image
                return
            }
            offset = end
        }
    }

    /// Forgets everything (the download starts over).
    func reset() {
        context = nil
        gaveUp = false
        imageType = nil
        dimensions = .zero
        isAnimated = false
    }

    /// Whether `data` ends the way a whole file of `type` ends: JPEG's end-of-image marker, PNG's `IEND`
    /// chunk, GIF's trailer, WebP's RIFF length. Other types pass. A cheap guard against bodies cut short
    /// by a lying `Content-Length`; the decode still has the last word.
    static func looksComplete(_ data: Data, type: ImageType?) -> Bool {
        data.withUnsafeBytes { looksComplete($0, type: type) }
    }

    /// ``looksComplete(_:type:)`` over raw bytes.
    static func looksComplete(_ raw: UnsafeRawBufferPointer, type: ImageType?) -> Bool {
        guard let type, !raw.isEmpty else { return !raw.isEmpty }
        let bytes = raw.bindMemory(to: UInt8.self)
        let count = bytes.count
        func tailContains(_ pattern: [UInt8], within window: Int) -> Bool {
            guard count >= pattern.count else { return false }
            let start = max(0, count - window)
            var index = count - pattern.count
            while index >= start {
                var matches = true
                for (offset, byte) in pattern.enumerated() where bytes[index + offset] != byte {
                    matches = false
                    break
                }
                if matches { return true }
                index -= 1
            }
            return false
        }
        switch type {
        case .jpeg:
            // Entropy-coded data never holds FF D9 (0xFF is stuffed), so an end-of-image marker near the
            // end means the last scan finished.
            return tailContains([0xFF, 0xD9], within: 4096)
        case .png:
            return tailContains(Array("IEND".utf8), within: 64)
        case .gif:
            return bytes[count - 1] == 0x3B
        case .webp:
            guard count >= 12 else { return false }
            let declared = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
            return count >= declared + 8
        default:
            return true
        }
    }
}
