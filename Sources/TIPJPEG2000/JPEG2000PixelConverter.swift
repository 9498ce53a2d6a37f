import COpenJPEG
import TIP

/// Turns OpenJPEG's decoded components (one 32-bit plane per component, any precision, signed or
/// not, possibly subsampled) into a ``Bitmap``: gray, RGB, sYCC / e-sYCC or CMYK colour, with an
/// optional alpha component (straight or premultiplied) that ends up premultiplied.
///
/// Made from the image as `opj_decode` left it: OpenJPEG applies a JP2 file's colour specification
/// (`colr`), palette (`pclr` + `cmap`) and channel definition (`cdef`) boxes only while decoding, so
/// the image `opj_read_header` gives has no colour space, no alpha flags and, with a palette, another
/// component count.
struct JPEG2000PixelConverter {
    /// How the colour components are to be read.
    enum ColorModel: Equatable {
        case gray, rgb, ycc, cmyk
    }

    /// How the colour components are read.
    let colorModel: ColorModel
    /// Indices of the colour components in the image, in model order.
    let colorComponents: [Int]
    /// Index of the alpha component, if any.
    let alphaComponent: Int?
    /// Whether the alpha component's colour is already premultiplied (JP2 `cdef` type 2).
    let isPremultiplied: Bool

    /// The pixel format of the output.
    var format: PixelFormat {
        if alphaComponent != nil { return .rgba8Premultiplied }
        return colorModel == .gray ? .gray8 : .rgbx8
    }

    /// The component roles of `image` as `opj_decode` left it (colour space, alpha types and palette
    /// applied). Throws for layouts that are not an image.
    init(decoded image: opj_image_t) throws(ImageDecodingError) {
        let count = Int(image.numcomps)
        guard count >= 1, count <= 5, let components = image.comps else {
            throw .unsupported("JPEG 2000 with \(count) components after decoding")
        }
        try self.init(
            componentCount: count, alpha: (0..<count).map { Int(components[$0].alpha) },
            colorSpace: Self.colorSpace(of: image, components: components))
    }

    /// The component roles of an image with `count` components (`alpha[i]` is OpenJPEG's alpha
    /// type of component i: 1 opacity, 2 premultiplied opacity) in colour space `space`. Throws for
    /// layouts that are not an image.
    init(componentCount count: Int, alpha: [Int], colorSpace space: OPJ_COLOR_SPACE) throws(ImageDecodingError) {
        guard count >= 1, count <= 5, alpha.count == count else {
            throw .unsupported("JPEG 2000 with \(count) components")
        }
        let alphaIndices = alpha.indices.filter { alpha[$0] != 0 }
        guard alphaIndices.count <= 1 else {
            throw .unsupported("JPEG 2000 with \(alphaIndices.count) alpha components")
        }
        var alphaIndex = alphaIndices.first
        // No channel definition: a second or fourth component is alpha (except CMYK's K).
        if alphaIndex == nil, count == 2 || (count == 4 && space != OPJ_CLRSPC_CMYK) {
            alphaIndex = count - 1
        }
        let colors = (0..<count).filter { $0 != alphaIndex }
        switch colors.count {
        case 1: colorModel = .gray
        case 3 where space == OPJ_CLRSPC_SYCC || space == OPJ_CLRSPC_EYCC: colorModel = .ycc
        case 3 where space != OPJ_CLRSPC_CMYK: colorModel = .rgb
        case 4 where space == OPJ_CLRSPC_CMYK: colorModel = .cmyk
        default:
            throw .unsupported("JPEG 2000 with \(colors.count) colour components in colour space \(space.rawValue)")
        }
        colorComponents = colors
        alphaComponent = alphaIndex
        isPremultiplied = alphaIndex.map { alpha[$0] == 2 } ?? false
    }

    /// Whether an image whose header shows `count` components may have alpha: a guess, as the boxes
    /// that say (`cdef`, `pclr`) are applied only while decoding.
    static func mayHaveAlpha(componentCount count: Int) -> Bool {
        count == 2 || count >= 4
    }

    /// The colour space of `image`; an unspecified one (a bare codestream, a JP2 without a known
    /// enumerated colour space) with three components whose second and third are subsampled and the
    /// first is not is sYCC, as opj_decompress reads it.
    private static func colorSpace(of image: opj_image_t, components: UnsafeMutablePointer<opj_image_comp_t>)
        -> OPJ_COLOR_SPACE
    {
        let space = image.color_space
        guard space == OPJ_CLRSPC_UNSPECIFIED || space == OPJ_CLRSPC_UNKNOWN, image.numcomps == 3 else { return space }
        let luma = components[0], cb = components[1], cr = components[2]
        let subsampled = luma.dx == 1 && luma.dy == 1 && (cb.dx > 1 || cb.dy > 1) && cb.dx == cr.dx && cb.dy == cr.dy
        return subsampled ? OPJ_CLRSPC_SYCC : space
    }

    /// The decoded `image` (the one this converter was made from) as a bitmap of the first colour
    /// component's (decoded) size. Throws ``ImageDecodingError/corruptData(_:)`` when a component the
    /// layout uses is missing or carries no data.
    func bitmap(from image: UnsafePointer<opj_image_t>) throws(ImageDecodingError) -> Bitmap {
        let count = Int(image.pointee.numcomps)
        var used = colorComponents
        if let alphaComponent { used.append(alphaComponent) }
        guard let components = image.pointee.comps, used.allSatisfy({ $0 >= 0 && $0 < count }) else {
            throw .corruptData(
                "JPEG 2000 image with \(count) components after decoding, fewer than its pixel layout uses")
        }
        for index in used {
            let component = components[index]
            guard component.data != nil, component.w > 0, component.h > 0, component.prec >= 1, component.prec <= 31
            else { throw .corruptData("OpenJPEG returned no pixels") }
        }
        let reference = components[colorComponents[0]]
        let width = Int(reference.w), height = Int(reference.h)
        guard var bitmap = Bitmap(uninitializedWidth: width, height: height, format: format) else {
            throw .corruptData("OpenJPEG returned no pixels")
        }
        let planes = used.map { JPEG2000ComponentPlane(components[$0], reference: reference) }
        let stride = bitmap.bytesPerRow
        let model = colorModel
        let hasAlpha = alphaComponent != nil, premultiplied = isPremultiplied
        var rows = [[UInt8]](repeating: [UInt8](repeating: 0, count: width), count: planes.count)
        bitmap.withUnsafeMutableBytes { pixels in
            guard let base = pixels.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            for y in 0..<height {
                for (index, plane) in planes.enumerated() { plane.fill(&rows[index], y: y) }
                let out = base + y * stride
                Self.pack(rows, into: out, width: width, model: model, hasAlpha: hasAlpha, premultiplied: premultiplied)
            }
        }
        return bitmap
    }

    /// Writes one output row from the 8-bit component rows (colour components, then alpha).
    private static func pack(
        _ rows: [[UInt8]], into out: UnsafeMutablePointer<UInt8>, width: Int, model: ColorModel,
        hasAlpha: Bool, premultiplied: Bool
    ) {
        if model == .gray && !hasAlpha {
            rows[0].withUnsafeBufferPointer { gray in
                guard let source = gray.baseAddress else { return }
                out.update(from: source, count: width)
            }
            return
        }
        let alphaRow = hasAlpha ? rows[rows.count - 1] : []
        for x in 0..<width {
            var r: Int, g: Int, b: Int
            switch model {
            case .gray:
                r = Int(rows[0][x]); g = r; b = r
            case .rgb:
                r = Int(rows[0][x]); g = Int(rows[1][x]); b = Int(rows[2][x])
            case .ycc:
                let luma = Int(rows[0][x]) << 16, cb = Int(rows[1][x]) - 128, cr = Int(rows[2][x]) - 128
                // BT.601 full range, 16-bit fixed point.
                r = clamp((luma + 91_881 * cr + 32_768) >> 16)
                g = clamp((luma - 22_554 * cb - 46_802 * cr + 32_768) >> 16)
                b = clamp((luma + 116_130 * cb + 32_768) >> 16)
            case .cmyk:
                let k = 255 - Int(rows[3][x])
                r = (255 - Int(rows[0][x])) * k / 255
                g = (255 - Int(rows[1][x])) * k / 255
                b = (255 - Int(rows[2][x])) * k / 255
            }
            var a = 255
            if hasAlpha {
                a = Int(alphaRow[x])
                if premultiplied {
                    r = min(r, a); g = min(g, a); b = min(b, a)
                } else if a < 255 {
                    r = (r * a + 127) / 255; g = (g * a + 127) / 255; b = (b * a + 127) / 255
                }
            }
            out[x * 4] = UInt8(r)
            out[x * 4 + 1] = UInt8(g)
            out[x * 4 + 2] = UInt8(b)
            out[x * 4 + 3] = UInt8(a)
        }
    }

    private static func clamp(_ value: Int) -> Int { min(max(value, 0), 255) }
}
