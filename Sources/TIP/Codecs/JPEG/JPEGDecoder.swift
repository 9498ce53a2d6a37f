import CJPEGIncremental
import CTurboJPEG
import Foundation

/// Decodes JPEG: one-shot on TurboJPEG (DCT-scaled to the target, EXIF orientation applied, then
/// resampled to the exact target dimensions; complete progressive files through libjpeg with pooled
/// coefficient memory, see ``decodeProgressive(_:scale:outputSpace:destination:pitch:)``, and complete
/// sequential ones through libjpeg with TIP's entropy decoder, see
/// ``decodeSequential(_:scale:outputSpace:destination:pitch:)``), incrementally through ``JPEGDecoderContext``.
///
/// Stateless; safe to call from any thread (TurboJPEG handles come from a locked pool).
struct JPEGDecoder: ImageDecoder {
    /// Progressive scans and baseline rows render before all bytes arrive.
    var supportsProgressiveDecoding: Bool { true }

    func detect(_ data: Data, isComplete: Bool) -> ImageDecoderDetection {
        let magic: [UInt8] = [0xFF, 0xD8, 0xFF]
        let prefix = data.prefix(3)
        for (i, byte) in prefix.enumerated() where byte != magic[i] { return .noMatch }
        if prefix.count < 3 { return isComplete ? .noMatch : .needMoreData }
        return .match
    }

    func makeContext(expectedLength: Int?, options: ImageDecodingOptions) -> any ImageDecoderContext {
        JPEGDecoderContext(options: options)
    }

    func decode(_ data: Data, options: ImageDecodingOptions) throws(ImageDecodingError) -> ImageContainer {
        guard !data.isEmpty else { throw .emptyData }
        let result = data.withUnsafeBytes { raw -> Result<ImageContainer, ImageDecodingError> in
            let decoded = TurboJPEGHandlePool.decompressors.withHandle { handle, discard in
                let result = Self.decode(raw, handle: handle, options: options, discard: &discard)
                return result
            }
            return decoded ?? .failure(.unsupported("TurboJPEG could not create a decompressor"))
        }
        return try result.get()
    }

    // MARK: - One-shot decode

    private static func errorMessage(_ handle: tjhandle) -> String {
        guard let text = tjGetErrorStr2(handle) else { return "unknown TurboJPEG error" }
        return String(cString: text)
    }

    private static func decode(
        _ bytes: UnsafeRawBufferPointer, handle: tjhandle, options: ImageDecodingOptions, discard: inout Bool
    ) -> Result<ImageContainer, ImageDecodingError> {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return .failure(.emptyData) }
        guard bytes.count >= 2, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return .failure(.unrecognizedFormat) }
        var width: Int32 = 0, height: Int32 = 0, subsampling: Int32 = 0, colorspace: Int32 = 0
        var headerStatus = tjDecompressHeader3(
            handle, base, UInt(bytes.count), &width, &height, &subsampling, &colorspace)
        if headerStatus != 0, errorMessage(handle).contains("Could not determine subsampling"),
            let header = libjpegHeader(bytes)
        {
            (width, height, colorspace) = (header.width, header.height, header.colorspace)
            headerStatus = 0
        }
        guard headerStatus == 0, width > 0, height > 0 else {
            discard = true
            if headerStatus == 0 { return .failure(.truncatedData) }
            let message = errorMessage(handle)
            if message.contains("Premature end") || message.contains("no image") { return .failure(.truncatedData) }
            // 12-bit samples, lossless or hierarchical coding: valid JPEG that this build of libjpeg does not decode.
            if message.contains("Unsupported JPEG") { return .failure(.unsupported(message)) }
            return .failure(.corruptData(message))
        }
        let w = Int(width), h = Int(height)
        do {
            try options.checkDimensions(width: w, height: h)
        } catch {
            return .failure(error)
        }
        let markers = JPEGMarkerScanner(bytes)
        let orientation = markers.orientation(in: bytes)
        let scale = JPEGScaleSelection(
            width: w, height: h, orientation: orientation,
            targetDimensions: options.targetDimensions, contentMode: options.targetContentMode)

        let isCMYK = colorspace == Int32(TJCS_CMYK.rawValue) || colorspace == Int32(TJCS_YCCK.rawValue)
        let isGray = colorspace == Int32(TJCS_GRAY.rawValue)
        let format: PixelFormat = isGray ? .gray8 : .rgbx8
        let pixelFormat: Int32 =
            isGray ? Int32(TJPF_GRAY.rawValue) : (isCMYK ? Int32(TJPF_CMYK.rawValue) : Int32(TJPF_RGBX.rawValue))
        guard var bitmap = Bitmap(uninitializedWidth: scale.scaledWidth, height: scale.scaledHeight, format: format)
        else {
            return .failure(.dimensionsTooLarge(width: w, height: h, maximumPixelCount: options.maximumPixelCount))
        }
        let pitch = bitmap.bytesPerRow
        let sw = Int32(scale.scaledWidth), sh = Int32(scale.scaledHeight)
        let outputSpace = Int32(isGray ? TIP_JPEG_OUT_GRAY : (isCMYK ? TIP_JPEG_OUT_CMYK : TIP_JPEG_OUT_RGBX))
        // A file that uses tables it does not define decodes on a handle of its own (see definesItsTables).
        let pooled = markers.definesItsTables
        func decompress(into dst: UnsafeMutableRawBufferPointer, handle: tjhandle) -> DecompressStatus {
            let status = tjDecompress2(
                handle, base, UInt(bytes.count), dst.baseAddress!.assumingMemoryBound(to: UInt8.self), sw,
                Int32(pitch), sh, pixelFormat, 0)
            if status == 0 { return .ok }
            if tjGetErrorCode(handle) == Int32(TJERR_WARNING.rawValue) { return .warning(errorMessage(handle)) }
            return .error(errorMessage(handle))
        }
        let status = bitmap.withUnsafeMutableBytes { dst -> DecompressStatus in
            if markers.isProgressive, endsWithEOI(bytes),
                decodeProgressive(
                    bytes, scale: scale, outputSpace: outputSpace, destination: dst.baseAddress!, pitch: pitch)
            {
                return .ok
            }
            if pooled,
                decodeInParallel(
                    base, count: bytes.count, scale: scale, pixelFormat: pixelFormat, destination: dst.baseAddress!,
                    pitch: pitch)
            {
                return .ok
            }
            if !markers.isProgressive, endsWithEOI(bytes),
                decodeSequential(
                    bytes, scale: scale, outputSpace: outputSpace, destination: dst.baseAddress!, pitch: pitch)
            {
                return .ok
            }
            if pooled { return decompress(into: dst, handle: handle) }
            return TurboJPEGHandlePool.decompressors.withHandle(fresh: true) { own, _ in
                decompress(into: dst, handle: own)
            } ?? .error("TurboJPEG could not create a decompressor")
        }
        var isPartial = false
        switch status {
        case .ok:
            break
        case .error(let message):
            discard = true
            return .failure(.corruptData(message))
        case .warning:
            discard = true
            // A warning (truncated or slightly corrupt data). The warning code also survives a later
            // fatal error, which may leave rows unwritten: decode again into a pre-filled buffer so
            // every pixel is defined, on a new handle (the first decode left this one's tables changed).
            fillMidGray(&bitmap, cmyk: isCMYK, inverted: markers.hasAdobeMarker)
            let retry = bitmap.withUnsafeMutableBytes { dst in
                TurboJPEGHandlePool.decompressors.withHandle(fresh: true) { own, _ in decompress(into: dst, handle: own)
                }
                    ?? .error("TurboJPEG could not create a decompressor")
            }
            switch retry {
            case .error(let message):
                return .failure(.corruptData(message))
            case .warning(let message):
                // Cut short: no EOI, or an EOI (or another marker) inside a scan's data, which libjpeg reports as
                // a premature end and fills with gray. Damaged: a code no table has, restart markers out of step
                // (blocks lost). Other warnings (extraneous bytes before a marker) are benign. A message that is
                // not a warning's is the fatal error that ended the decode after one: what it left unwritten is
                // gray, so the image is partial.
                isPartial = !endsWithEOI(bytes) || Self.isDamageWarning(message) || !isLibjpegWarning(message)
            case .ok:
                isPartial = !endsWithEOI(bytes)
            }
        }
        if isCMYK {
            bitmap.withUnsafeMutableBytes { dst in
                CMYKConverter.convertToRGBX(
                    dst.baseAddress!, width: scale.scaledWidth, height: scale.scaledHeight, pitch: pitch,
                    inverted: markers.hasAdobeMarker)
            }
        }
        return .success(
            ImageContainer(
                image: finish(
                    bitmap, orientation: orientation, width: scale.finalWidth, height: scale.finalHeight,
                    quality: options.interpolationQuality), isPartial: isPartial))
    }

    /// How a `tjDecompress2` call ended.
    private enum DecompressStatus {
        case ok
        case warning(String)
        case error(String)
    }

    /// Orients `bitmap` and resamples it to `width` x `height` (display orientation) when needed.
    static func finish(
        _ bitmap: Bitmap, orientation: ImageOrientation, width: Int, height: Int, quality: InterpolationQuality
    ) -> Bitmap {
        let oriented = bitmap.applyingOrientation(orientation)
        if oriented.width == width && oriented.height == height { return oriented }
        return Resampler.resample(oriented, width: width, height: height, quality: quality)
    }

    /// The beginnings of libjpeg's warning messages (`JWRN_*` in jerror.h). TurboJPEG reports a fatal error
    /// that follows a warning with the warning's code and the error's message, so the message tells them apart.
    private static let libjpegWarningPrefixes = [
        "Corrupt JPEG data", "Premature end of JPEG file", "Warning:", "Unknown Adobe color transform",
        "Inconsistent progression sequence", "Invalid SOS parameters for sequential JPEG",
        "Application transferred too many scanlines",
    ]

    /// Whether `message` is a libjpeg warning that means pixels were lost (cut short or damaged data).
    static func isDamageWarning(_ message: String) -> Bool {
        let lowercased = message.localizedLowercase
        return damageWarningFragments.contains { lowercased.contains($0) }
    }

    /// Parts of the libjpeg warnings that mean pixels were lost (`JWRN_HIT_MARKER`, `JWRN_JPEG_EOF`,
    /// `JWRN_HUFF_BAD_CODE`, `JWRN_ARITH_BAD_CODE`, `JWRN_MUST_RESYNC`).
    static let damageWarningFragments = [
        "premature end", "bad huffman code", "bad arithmetic code", "instead of rst",
    ]

    /// Whether `message` is one of libjpeg's warnings rather than a fatal error.
    static func isLibjpegWarning(_ message: String) -> Bool {
        libjpegWarningPrefixes.contains { message.hasPrefix($0) }
    }

    /// Whether the data ends with an EOI marker (trailing zero padding allowed).
    private static func endsWithEOI(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var end = bytes.count
        while end > 2 && bytes[end - 1] == 0 { end -= 1 }
        return end >= 2 && bytes[end - 2] == 0xFF && bytes[end - 1] == 0xD9
    }

    /// Fills every pixel with mid gray (in the sample space the decode writes).
    static func fillMidGray(_ bitmap: inout Bitmap, cmyk: Bool, inverted: Bool) {
        let pattern: UInt32
        switch bitmap.format {
        case .gray8: pattern = 0x8080_8080
        default:
            if cmyk {
                // Samples that CMYKConverter turns into (128, 128, 128).
                pattern = inverted ? UInt32(0x80) << 24 | 0x00FF_FFFF : UInt32(0x7F) << 24
            } else {
                pattern = 0xFF80_8080  // R, G, B = 128, X = 255 (little endian)
            }
        }
        let isGray = bitmap.format == .gray8
        let rowBytes = bitmap.width * bitmap.format.bytesPerPixel, pitch = bitmap.bytesPerRow, h = bitmap.height
        bitmap.withUnsafeMutableBytes { raw in
            for y in 0..<h {
                let row = raw.baseAddress! + y * pitch
                if isGray {
                    row.initializeMemory(as: UInt8.self, repeating: 0x80, count: rowBytes)
                } else {
                    row.initializeMemory(as: UInt32.self, repeating: UInt32(littleEndian: pattern), count: rowBytes / 4)
                }
            }
        }
    }
}
