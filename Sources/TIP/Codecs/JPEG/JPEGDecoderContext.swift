import CJPEGIncremental
import Foundation

/// Incremental JPEG decoding on libjpeg (through the CJPEGIncremental shim).
///
/// Progressive JPEGs are decoded in buffered-image mode: `append` stops consuming right after a
/// completed scan unless the next scan has fully arrived, so a `fullFrameProgress` render shows
/// exactly the completed scans; an `anyProgress` render first consumes everything queued. Baseline
/// JPEGs stream row by row. Output is decoded at the DCT scale chosen from the creation options,
/// then oriented and resampled to each render's target. Not thread-safe (one queue at a time).
final class JPEGDecoderContext: ImageDecoderContext {
    private(set) var data = Data()
    private(set) var dimensions: CGSize = .zero
    private(set) var frameCount = 0
    private(set) var isProgressive = false
    var isAnimated: Bool { false }
    var hasAlpha: Bool { false }

    private let options: ImageDecodingOptions
    private let decoder: OpaquePointer?
    private var error: ImageDecodingError?
    private var headerRead = false
    private var started = false
    private var inputComplete = false
    private var truncated = false
    private var finalized = false
    private var orientation: ImageOrientation = .up
    private var format: PixelFormat = .rgbx8
    private var isCMYK = false
    private var adobeInverted = false
    private var outputWidth = 0
    private var outputHeight = 0
    private var rowsDecoded = 0
    private var consumed: Int64 = 0
    /// Whether libjpeg's coefficients hold exactly the completed scans (no partial scan consumed).
    private var exactScans = true
    /// An output pass (DCT-scaled, stored orientation) with a unique token for render caching.
    private typealias Base = (token: Int, bitmap: Bitmap)
    private var nextToken = 0
    /// The last output pass and the progress it shows.
    private var lastBase: (consumed: Int64, scans: Int, rows: Int, base: Base)?
    /// The last output pass that showed exactly `scans` completed scans.
    private var lastFullFrameBase: (scans: Int, base: Base)?
    /// The last render, keyed by its final dimensions and the base it came from.
    private var lastRender: (width: Int, height: Int, token: Int, partial: Bool, container: ImageContainer)?

    init(options: ImageDecodingOptions) {
        self.options = options
        self.decoder = tip_jpeg_inc_create()
    }

    deinit {
        tip_jpeg_inc_destroy(decoder)
    }

    /// Whether the last progressive output pass allowed libjpeg's block smoothing (see `tip_wants_block_smoothing`
    /// in jpeg_incremental.c: always at larger scales, only before the first luma AC scan at 1/4, never at 1/8).
    var lastRenderAllowedBlockSmoothing: Bool {
        guard let decoder else { return false }
        return info(decoder).last_render_smoothing != 0
    }

    /// The AC scans of a progressive image that TIP's scan decoder decoded rather than libjpeg's (those whose data
    /// had entirely arrived; see jpeg_incremental.c).
    var scansDecodedByTIP: Int {
        guard let decoder else { return 0 }
        return Int(info(decoder).own_scans)
    }

    func append(_ chunk: Data) throws(ImageDecodingError) -> ImageDecoderAppendResult {
        if let error { throw error }
        guard let decoder else { throw fail(.unsupported("libjpeg could not create a decompressor")) }
        data.append(chunk)
        if finalized || inputComplete { return inputComplete ? .didCompleteLoading : .didProgress }
        guard !chunk.isEmpty else { return .didProgress }
        let status = chunk.withUnsafeBytes { tip_jpeg_inc_append(decoder, $0.baseAddress, $0.count) }
        guard status == 0 else { throw fail(.unsupported("out of memory queueing JPEG data")) }
        return try advance(hold: true)
    }

    func finalize() throws(ImageDecodingError) -> ImageDecoderAppendResult {
        if let error { throw error }
        guard let decoder else { throw fail(.unsupported("libjpeg could not create a decompressor")) }
        if !finalized {
            finalized = true
            if !inputComplete {
                tip_jpeg_inc_set_eof(decoder)
                if !headerRead {
                    // Without a header there is nothing to show.
                    throw fail(data.isEmpty ? .emptyData : .truncatedData)
                }
                _ = try advance(hold: false)
            }
        }
        if inputComplete && !truncated { return .didCompleteLoading }
        if frameCount > 0 { return .didLoadFrame }
        return headerRead ? .didLoadHeaders : .didProgress
    }

    func render(mode: ImageDecoderRenderMode, targetDimensions: CGSize, targetContentMode: ContentMode)
        throws(ImageDecodingError) -> ImageContainer?
    {
        if let error { throw error }
        guard started, let decoder else { return nil }
        let base: Base?
        let isPartial: Bool
        if isProgressive {
            switch mode {
            case .completeImage:
                guard inputComplete && !truncated else { return nil }
            case .fullFrameProgress:
                guard frameCount > 0 || inputComplete else { return nil }
            case .anyProgress:
                if !inputComplete && !finalized {
                    try consume(hold: false)
                }
            }
            base = try progressiveBase(decoder, fullFrameOnly: mode != .anyProgress)
            isPartial = !(inputComplete && !truncated)
        } else {
            switch mode {
            case .completeImage:
                guard inputComplete && !truncated else { return nil }
            case .fullFrameProgress:
                guard inputComplete else { return nil }
            case .anyProgress:
                guard rowsDecoded > 0 || inputComplete else { return nil }
            }
            base = sequentialBase(decoder)
            isPartial = !(inputComplete && !truncated)
        }
        guard let base else { return nil }
        var renderOptions = options
        renderOptions.targetDimensions = targetDimensions
        renderOptions.targetContentMode = targetContentMode
        let dims = try renderOptions.checkedOutputDimensions(
            width: Int(dimensions.width), height: Int(dimensions.height))
        let partialFlag = isPartial || truncated
        if let cached = lastRender, cached.width == dims.width, cached.height == dims.height,
            cached.token == base.token, cached.partial == partialFlag
        {
            return cached.container
        }
        let image = JPEGDecoder.finish(
            base.bitmap, orientation: orientation, width: dims.width, height: dims.height,
            quality: options.interpolationQuality)
        let container = ImageContainer(image: image, isPartial: partialFlag)
        lastRender = (dims.width, dims.height, base.token, partialFlag, container)
        return container
    }

    // MARK: - Decoding steps

    @discardableResult
    private func fail(_ error: ImageDecodingError) -> ImageDecodingError {
        self.error = error
        return error
    }

    private func libjpegError(_ decoder: OpaquePointer) -> ImageDecodingError {
        let message = String(cString: tip_jpeg_inc_error_message(decoder))
        return fail(.corruptData(message))
    }

    private func info(_ decoder: OpaquePointer) -> tip_jpeg_inc_info {
        var info = tip_jpeg_inc_info()
        tip_jpeg_inc_get_info(decoder, &info)
        return info
    }

    /// Reads the header when possible, then consumes queued bytes; returns the progress made.
    private func advance(hold: Bool) throws(ImageDecodingError) -> ImageDecoderAppendResult {
        guard let decoder else { return .didProgress }
        var result = ImageDecoderAppendResult.didProgress
        if !headerRead {
            let status = tip_jpeg_inc_read_header(decoder)
            if status < 0 {
                if finalized { throw fail(.truncatedData) }
                throw libjpegError(decoder)
            }
            if status == 0 { return .didProgress }
            try start(decoder)
            result = .didLoadHeaders
        }
        let scansBefore = frameCount
        try consume(hold: hold)
        if frameCount > scansBefore { result = max(result, .didLoadFrame) }
        if inputComplete && !truncated { result = .didCompleteLoading }
        return result
    }

    /// Checks the header, picks the scale and output format, and starts decompression.
    private func start(_ decoder: OpaquePointer) throws(ImageDecodingError) {
        headerRead = true
        let header = info(decoder)
        let width = Int(header.image_width), height = Int(header.image_height)
        do {
            try options.checkDimensions(width: width, height: height)
        } catch {
            throw fail(error)
        }
        var exifData: UnsafePointer<UInt8>? = nil
        var exifLength = 0
        if tip_jpeg_inc_exif(decoder, &exifData, &exifLength) == 1, let exifData {
            orientation =
                EXIFOrientationParser.orientation(fromTIFF: UnsafeRawBufferPointer(start: exifData, count: exifLength))
                ?? .up
        }
        dimensions =
            orientation.swapsDimensions ? CGSize(width: height, height: width) : CGSize(width: width, height: height)
        isProgressive = header.progressive != 0
        // J_COLOR_SPACE: 1 grayscale, 4 CMYK, 5 YCCK.
        let colorSpace = header.jpeg_color_space
        isCMYK = colorSpace == 4 || colorSpace == 5
        adobeInverted = header.saw_adobe_marker != 0
        format = colorSpace == 1 ? .gray8 : .rgbx8
        // A header-only reader stops here: starting would allocate the output rows (or, for a progressive
        // JPEG, the whole coefficient buffer).
        if options.readsHeaderOnly { return }
        let outSpace =
            colorSpace == 1 ? Int32(TIP_JPEG_OUT_GRAY) : (isCMYK ? Int32(TIP_JPEG_OUT_CMYK) : Int32(TIP_JPEG_OUT_RGBX))
        let scale = JPEGScaleSelection(
            width: width, height: height, orientation: orientation,
            targetDimensions: options.targetDimensions, contentMode: options.targetContentMode)
        let status = tip_jpeg_inc_start(decoder, Int32(scale.numerator), Int32(scale.denominator), outSpace)
        if status < 0 { throw libjpegError(decoder) }
    }

    /// Consumes queued bytes and refreshes the progress fields.
    private func consume(hold: Bool) throws(ImageDecodingError) {
        guard let decoder, headerRead, !options.readsHeaderOnly else { return }
        let before = consumed
        if tip_jpeg_inc_consume(decoder, hold ? 1 : 0) < 0 {
            throw libjpegError(decoder)
        }
        let state = info(decoder)
        started = state.started != 0
        outputWidth = Int(state.output_width)
        outputHeight = Int(state.output_height)
        rowsDecoded = Int(state.rows_decoded)
        inputComplete = state.input_complete != 0
        truncated = state.truncated != 0
        consumed = state.consumed
        if Int(state.completed_scans) > frameCount {
            frameCount = Int(state.completed_scans)
            exactScans = hold
        } else if !hold && consumed != before {
            exactScans = false
        }
    }

    /// The output pass for the current progressive state (or a cached one).
    private func progressiveBase(_ decoder: OpaquePointer, fullFrameOnly: Bool) throws(ImageDecodingError) -> Base? {
        if fullFrameOnly && !exactScans && !inputComplete, let cached = lastFullFrameBase, cached.scans == frameCount {
            return cached.base
        }
        if let cached = lastBase, cached.consumed == consumed, cached.scans == frameCount {
            return cached.base
        }
        guard var bitmap = Bitmap(uninitializedWidth: outputWidth, height: outputHeight, format: format) else {
            return nil
        }
        let pitch = bitmap.bytesPerRow
        let produced = bitmap.withUnsafeMutableBytes { raw in
            tip_jpeg_inc_render_progressive(decoder, 0, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), pitch)
        }
        if produced == -2 { return lastBase?.base }
        if produced < 0 { throw libjpegError(decoder) }
        // Nothing decoded yet: nothing to show.
        if produced == 0 && frameCount == 0 && !inputComplete { return nil }
        fillRows(&bitmap, from: Int(produced))
        convertCMYK(&bitmap)
        let base = makeBase(bitmap)
        lastBase = (consumed, frameCount, 0, base)
        if exactScans || inputComplete { lastFullFrameBase = (frameCount, base) }
        return base
    }

    /// The rows decoded so far of a sequential JPEG, the rest mid gray.
    private func sequentialBase(_ decoder: OpaquePointer) -> Base? {
        if let cached = lastBase, cached.rows == rowsDecoded, cached.consumed == consumed {
            return cached.base
        }
        guard var bitmap = Bitmap(uninitializedWidth: outputWidth, height: outputHeight, format: format) else {
            return nil
        }
        let pitch = bitmap.bytesPerRow
        let copied = bitmap.withUnsafeMutableBytes { raw in
            tip_jpeg_inc_copy_rows(decoder, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), pitch)
        }
        fillRows(&bitmap, from: Int(copied))
        convertCMYK(&bitmap)
        let base = makeBase(bitmap)
        lastBase = (consumed, 0, rowsDecoded, base)
        return base
    }

    private func makeBase(_ bitmap: Bitmap) -> Base {
        nextToken += 1
        return (nextToken, bitmap)
    }

    /// Fills rows `from..<height` with mid gray so no pixel is left undefined.
    private func fillRows(_ bitmap: inout Bitmap, from first: Int) {
        guard first < bitmap.height else { return }
        let rowBytes = bitmap.width * bitmap.format.bytesPerPixel, pitch = bitmap.bytesPerRow, height = bitmap.height
        let gray = format == .gray8
        let pattern: UInt32 = isCMYK ? (adobeInverted ? 0x80FF_FFFF : 0x7F00_0000) : 0xFF80_8080
        bitmap.withUnsafeMutableBytes { raw in
            for y in max(first, 0)..<height {
                let row = raw.baseAddress! + y * pitch
                if gray {
                    row.initializeMemory(as: UInt8.self, repeating: 0x80, count: rowBytes)
                } else {
                    row.initializeMemory(as: UInt32.self, repeating: UInt32(littleEndian: pattern), count: rowBytes / 4)
                }
            }
        }
    }

    private func convertCMYK(_ bitmap: inout Bitmap) {
        guard isCMYK else { return }
        let w = bitmap.width, h = bitmap.height, pitch = bitmap.bytesPerRow, inverted = adobeInverted
        bitmap.withUnsafeMutableBytes { raw in
            CMYKConverter.convertToRGBX(raw.baseAddress!, width: w, height: h, pitch: pitch, inverted: inverted)
        }
    }
}
