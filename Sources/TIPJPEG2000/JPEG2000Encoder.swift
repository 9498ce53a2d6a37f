import COpenJPEG
import Foundation
import TIP

/// The JPEG 2000 encoder behind ``JPEG2000Codec``: the first frame as a JP2 file.
///
/// - `quality` ≥ ``losslessQualityThreshold``: lossless (reversible 5/3 wavelet and colour transform).
/// - Below: lossy (9/7 wavelet, irreversible colour transform) at a target PSNR of
///   25 + 25 x `quality` dB (0.8 → 45 dB).
/// - Resolution-major progression (RPCL) with up to 6 resolution levels, so a partial download
///   shows the whole picture at a lower resolution first and decoders can skip levels.
/// - Gray bitmaps (or `.grayscale`) write one component; alpha (unless `.noAlpha`) a fourth,
///   unpremultiplied, declared in the JP2 channel definition box.
///
/// Stateless and thread-safe.
struct JPEG2000Encoder: ImageEncoder {
    /// Qualities at or above this encode losslessly.
    static let losslessQualityThreshold: Float = 0.999

    /// The PSNR (dB) that lossy `quality` aims at.
    static func targetPSNR(quality: Float) -> Float { 25 + 25 * quality }

    /// Encodes the first frame of `image`. Throws ``PipelineError`` when OpenJPEG fails.
    func encode(_ image: ImageContainer, options: ImageEncodingOptions, quality: Float) throws(PipelineError) -> Data {
        let source = image.image
        let width = source.width, height = source.height
        let gray = source.format == .gray8 || options.contains(.grayscale)
        let alpha = source.format == .rgba8Premultiplied && !options.contains(.noAlpha) && source.containsTransparency()
        let componentCount = (gray ? 1 : 3) + (alpha ? 1 : 0)
        var parameters = [opj_image_cmptparm_t](repeating: opj_image_cmptparm_t(), count: componentCount)
        for index in parameters.indices {
            parameters[index].dx = 1
            parameters[index].dy = 1
            parameters[index].w = UInt32(width)
            parameters[index].h = UInt32(height)
            parameters[index].prec = 8
            parameters[index].sgnd = 0
        }
        guard
            let opjImage = opj_image_create(
                UInt32(componentCount), &parameters, gray ? OPJ_CLRSPC_GRAY : OPJ_CLRSPC_SRGB)
        else {
            throw PipelineError(
                .failedToInitializeImageDestination, "OpenJPEG could not allocate a \(width)x\(height) image.")
        }
        defer { opj_image_destroy(opjImage) }
        opjImage.pointee.x0 = 0
        opjImage.pointee.y0 = 0
        opjImage.pointee.x1 = UInt32(width)
        opjImage.pointee.y1 = UInt32(height)
        if alpha { opjImage.pointee.comps[componentCount - 1].alpha = 1 }
        Self.fill(opjImage, from: source, gray: gray, alpha: alpha)

        var settings = opj_cparameters_t()
        opj_set_default_encoder_parameters(&settings)
        let clamped = quality.isFinite ? min(max(quality, 0), 1) : 0.75
        settings.tcp_numlayers = 1
        if clamped >= Self.losslessQualityThreshold {
            settings.irreversible = 0
            settings.tcp_rates.0 = 0
            settings.cp_disto_alloc = 1
        } else {
            settings.irreversible = 1
            settings.tcp_distoratio.0 = Self.targetPSNR(quality: clamped)
            settings.cp_fixed_quality = 1
        }
        settings.tcp_mct = gray ? 0 : 1
        settings.prog_order = OPJ_RPCL
        // At least 1 pixel per side at the coarsest level (OpenJPEG refuses more levels than that).
        var levels = 1
        while levels < 6 && (min(width, height) >> levels) > 0 { levels += 1 }
        settings.numresolution = Int32(levels)

        guard let codec = opj_create_compress(OPJ_CODEC_JP2) else {
            throw PipelineError(.failedToInitializeImageDestination, "OpenJPEG could not create a compressor.")
        }
        defer { opj_destroy_codec(codec) }
        let messages = OpenJPEGMessages()
        messages.install(on: codec)
        guard opj_setup_encoder(codec, &settings, opjImage) != 0, let output = OpenJPEGOutputStream() else {
            throw PipelineError(
                .failedToInitializeImageDestination,
                "OpenJPEG refused the settings: \(messages.errorText(or: "no reason given"))")
        }
        guard opj_start_compress(codec, opjImage, output.stream) != 0,
            opj_encode(codec, output.stream) != 0,
            opj_end_compress(codec, output.stream) != 0
        else {
            throw PipelineError(
                .failedToFinalizeImageDestination,
                "OpenJPEG could not encode a \(width)x\(height) image: \(messages.errorText(or: "no reason given"))")
        }
        return output.data
    }

    /// Copies the pixels of `bitmap` into the components of `image`: gray or RGB, then straight alpha.
    private static func fill(_ image: UnsafeMutablePointer<opj_image_t>, from bitmap: Bitmap, gray: Bool, alpha: Bool) {
        let width = bitmap.width, height = bitmap.height
        let source = gray ? bitmap.converted(to: .gray8) : bitmap
        let colorCount = gray ? 1 : 3
        let planes = (0..<(colorCount + (alpha ? 1 : 0))).map { image.pointee.comps[$0].data! }
        let alphaPlane: UnsafeMutablePointer<Int32>? = alpha ? planes[colorCount] : nil
        let alphaSource = alpha && gray ? bitmap : source
        source.withUnsafeBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            for y in 0..<height {
                let row = base + y * source.bytesPerRow
                let offset = y * width
                if gray {
                    for x in 0..<width { planes[0][offset + x] = Int32(row[x]) }
                } else {
                    for x in 0..<width {
                        for c in 0..<3 { planes[c][offset + x] = Int32(row[x * 4 + c]) }
                    }
                }
            }
        }
        guard let alphaPlane else { return }
        alphaSource.withUnsafeBytes { raw in
            guard let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            for y in 0..<height {
                let row = base + y * alphaSource.bytesPerRow
                let offset = y * width
                for x in 0..<width {
                    let a = Int32(row[x * 4 + 3])
                    alphaPlane[offset + x] = a
                    guard a < 255 else { continue }
                    // Unpremultiply, rounding up so that premultiplying at decode gives the value back.
                    for c in 0..<colorCount {
                        let value = min(planes[c][offset + x], a)
                        planes[c][offset + x] = a == 0 ? 0 : min(255, (value * 255 + a - 1) / a)
                    }
                }
            }
        }
    }
}
