import Foundation

/// What a shared download holds of its image: the bytes (``ImageDownloadBuffer``), what its header says
/// (``ImageDownloadHeaderReader``), the disk-cache file the bytes are written to as they arrive, and the shared
/// partial image members render scans and first frames from (made only when a member may render).
///
/// Not thread-safe: confined to the downloader's queue, like the download that owns it.
final class ImageDownloadBody {
    private let buffer = ImageDownloadBuffer()
    private let header = ImageDownloadHeaderReader()
    private let interpolationQuality: InterpolationQuality
    private let maximumPixelCount: Int
    /// The file the bytes go to; nil when the disk cache could not take them.
    private(set) var file: ImagePipelineCaches.DownloadFile?
    /// How many of the buffer's bytes `file` holds: the rest is written once ``fileWriteBatch`` bytes are
    /// pending, and whatever is left by whoever commits the file after ``takeFile()``.
    private var fileByteCount = 0
    /// Bytes gathered before a write to the file: one write per 128 KiB instead of one per network chunk
    /// (often 16 KiB). A process that dies mid-download leaves at most this much less of a resumable partial.
    static let fileWriteBatch = 128 * 1024
    /// The partial image fed every byte, once made.
    private(set) var partialImage: PartialImage?

    init(
        interpolationQuality: InterpolationQuality,
        maximumPixelCount: Int = ImageDecodingOptions.defaultMaximumPixelCount
    ) {
        self.interpolationQuality = interpolationQuality
        self.maximumPixelCount = maximumPixelCount
    }

    /// Bytes held.
    var count: Int { buffer.count }
    /// Whether no byte is held.
    var isEmpty: Bool { buffer.isEmpty }
    /// The type detected from the first bytes, once known.
    var imageType: ImageType? { header.imageType }
    /// The dimensions from the header; zero before it.
    var dimensions: CGSize { header.dimensions }
    /// Whether the header says the image is animated.
    var isAnimated: Bool { header.isAnimated }
    /// Whether a codec read the image's header.
    var hasReadHeader: Bool { header.hasReadHeader }

    /// Whether the catalogue reads these bytes as an image: a type with a codec, a header it read, and no more
    /// pixels than `maximumPixelCount`. Only such bodies become cache entries.
    func isReadable(maximumPixelCount: Int) -> Bool {
        guard let type = header.imageType, CodecCatalogue.shared.codec(for: type) != nil, header.hasReadHeader else {
            return false
        }
        let width = header.dimensions.width, height = header.dimensions.height
        // Dimensions the header did not give (zero) are left to the decoder, as before.
        guard width > 0, height > 0 else { return true }
        guard width < 1e9, height < 1e9 else { return false }
        return ImageDecodingOptions.isWithinPixelLimit(width: Int(width), height: Int(height), limit: maximumPixelCount)
    }

    /// Whether the bytes end the way a whole file of their type ends (a cheap guard against bodies cut short).
    var looksComplete: Bool {
        buffer.withUnsafeBytes { ImageDownloadHeaderReader.looksComplete($0, type: header.imageType) }
    }

    /// Starts the body with a cached partial's bytes and the file seeded with them. False when the memory could not
    /// be had (the body stays empty).
    func seed(with partial: ImagePipelineCaches.CachedPartial) -> Bool {
        guard buffer.append(partial.data) else { return false }
        file = partial.file
        fileByteCount = buffer.count
        header.consume(all: partial.data, chunk: partial.data, expectedLength: partial.resume.expectedLength)
        return true
    }

    /// Writes the bytes to `file` from now on (a new download's file).
    func useFile(_ file: ImagePipelineCaches.DownloadFile?) {
        self.file?.discard()
        self.file = file
        fileByteCount = buffer.count
    }

    /// Makes room for `total` bytes at once (the announced length).
    func reserve(_ total: Int) {
        if total > buffer.count { buffer.reserve(total) }
    }

    /// Appends the next bytes: to the buffer, the file (dropped if writing fails: the download goes on without it),
    /// the header reader and the partial image. False when the memory could not be had.
    func append(_ data: Data, expectedLength: Int?) -> Bool {
        guard buffer.append(data) else { return false }
        if file != nil, buffer.count - fileByteCount >= Self.fileWriteBatch { writePendingBytes() }
        // Until the type is known the reader wants every byte so far: the chunk itself when it is all there is
        // (the usual first chunk, up to libcurl's whole buffer), which spares a copy of it.
        header.consume(
            all: buffer.count == data.count ? data : buffer.copy(), chunk: data, expectedLength: expectedLength)
        partialImage?.append(data)
        return true
    }

    /// Makes the partial image (fed every byte so far) unless there is one, decoding for the given sizing (JPEG
    /// picks its DCT scale from it; members rendering at other sizings resample from that scale).
    func makePartialImage(targetDimensions: CGSize, targetContentMode: ContentMode, expectedLength: Int?) {
        guard partialImage == nil else { return }
        let made = PartialImage(
            expectedLength: expectedLength, sizingHint: (targetDimensions, targetContentMode),
            interpolationQuality: interpolationQuality, maximumPixelCount: maximumPixelCount)
        if !buffer.isEmpty { made.append(buffer.copy()) }
        partialImage = made
    }

    /// Stops feeding the partial image (no member renders any more).
    func dropPartialImage() {
        partialImage = nil
    }

    /// Forgets every byte: the download starts over from byte 0 into `file`. A partial image is made again (empty)
    /// for the same sizing.
    func reset(file: ImagePipelineCaches.DownloadFile?) {
        buffer.clear()
        header.reset()
        useFile(file)
        if let old = partialImage {
            partialImage = PartialImage(
                expectedLength: nil, sizingHint: old.sizingHint, interpolationQuality: interpolationQuality,
                maximumPixelCount: maximumPixelCount)
        }
    }

    /// Hands the bytes over (the body is empty afterwards). The file may not hold the last of them yet: see
    /// ``takeFile()``.
    func take() -> Data {
        buffer.take()
    }

    /// Hands the file over (the body no longer writes to it). It holds a prefix of the body's bytes: whoever
    /// commits it writes the rest from the bytes ``take()`` handed over
    /// (``ImagePipelineCaches/commitDownloadFile(_:image:for:complete:)``), off the downloader's queue.
    func takeFile() -> ImagePipelineCaches.DownloadFile? {
        defer { file = nil }
        return file
    }

    /// Writes the bytes the file does not hold yet (the file is dropped if writing fails: the download goes on
    /// without it).
    private func writePendingBytes() {
        guard let file, buffer.count > fileByteCount else { return }
        let written = buffer.withUnsafeBytes { bytes -> Bool in
            guard let base = bytes.baseAddress else { return true }
            let pending = Data(
                bytesNoCopy: UnsafeMutableRawPointer(mutating: base + fileByteCount),
                count: bytes.count - fileByteCount, deallocator: .none)
            return file.append(pending)
        }
        if written {
            fileByteCount = buffer.count
        } else {
            self.file = nil
        }
    }

    /// What the body holds, as the caches record it (the bytes taken from the body).
    func takeImage(lastModified: String?, entityTag: String?, expectedLength: Int?)
        -> ImagePipelineCaches.DownloadedImage
    {
        ImagePipelineCaches.DownloadedImage(
            data: take(), imageType: header.imageType, dimensions: header.dimensions,
            isAnimated: header.isAnimated, lastModified: lastModified, entityTag: entityTag,
            expectedLength: expectedLength)
    }
}

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
            let made = decoder.makeContext(
                expectedLength: expectedLength, options: ImageDecodingOptions(readsHeaderOnly: true))
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

    /// Whether `data` holds the end of a whole file of `type`: JPEG's end-of-image marker, PNG's `IEND` chunk,
    /// GIF's trailer, WebP's RIFF length. Other types pass. Bytes after the end (a motion photo's video, padding,
    /// a newline) are allowed, as browsers and decoders ignore them. A cheap guard against bodies cut short by a
    /// lying `Content-Length`; the decode has the last word (a body cut short, even one closed with an end marker,
    /// decodes partial, and a partial decode of a complete body fails).
    static func looksComplete(_ data: Data, type: ImageType?) -> Bool {
        data.withUnsafeBytes { looksComplete($0, type: type) }
    }

    /// ``looksComplete(_:type:)`` over raw bytes.
    static func looksComplete(_ raw: UnsafeRawBufferPointer, type: ImageType?) -> Bool {
        guard let type, !raw.isEmpty else { return !raw.isEmpty }
        let bytes = raw.bindMemory(to: UInt8.self)
        let count = bytes.count
        /// Whether `pattern` occurs after the first `skip` bytes, searching from the end.
        func contains(_ pattern: [UInt8], after skip: Int) -> Bool {
            guard count >= pattern.count + skip else { return false }
            var index = count - pattern.count
            while index >= skip {
                if bytes[index] == pattern[0] {
                    var matches = true
                    for offset in 1..<pattern.count where bytes[index + offset] != pattern[offset] {
                        matches = false
                        break
                    }
                    if matches { return true }
                }
                index -= 1
            }
            return false
        }
        switch type {
        case .jpeg:
            // Entropy-coded data never holds FF D9 (0xFF is stuffed): an end-of-image marker after the start
            // of image means a scan finished (the decode tells an embedded thumbnail's apart).
            return contains([0xFF, 0xD9], after: 2)
        case .png:
            return contains(Array("IEND".utf8), after: 8)
        case .gif:
            return contains([0x3B], after: 6)
        case .webp:
            guard count >= 12 else { return false }
            let declared = Int(bytes[4]) | Int(bytes[5]) << 8 | Int(bytes[6]) << 16 | Int(bytes[7]) << 24
            return count >= declared + 8
        default:
            return true
        }
    }
}
