import COpenJPEG
import TIP

/// Turns OpenJPEG's decoded components (one 32-bit plane per component, any precision, signed or
/// not, possibly subsampled) into a ``Bitmap``: gray, RGB, sYCC or CMYK colour, with an optional
/// alpha component (straight or premultiplied) that ends up premultiplied.
struct JPEG2000PixelConverter {
    /// How the colour components are to be read.
    enum ColorModel: Equatable {
        case gray, rgb, ycc, cmyk
    }

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

    /// The component roles of an image with `count` components (`alpha[i]` is OpenJPEG's alpha
    /// type of component i) in colour space `space`. Throws for layouts that are not an image.
    init(componentCount count: Int, alpha: [Int], colorSpace space: OPJ_COLOR_SPACE) throws(ImageDecodingError) {
        guard count >= 1, count <= 5, alpha.count == count else {
            throw .unsupported("JPEG 2000 with \(count) components")
        }
        var alphaIndex = alpha.firstIndex { $0 != 0 }
        let colorCountWithoutAlpha = count - (alphaIndex == nil ? 0 : 1)
        // No channel definition box: a second or fourth component is alpha (except CMYK's K).
        if alphaIndex == nil, count == 2 || (count == 4 && space != OPJ_CLRSPC_CMYK) {
            alphaIndex = count - 1
        }
        let colors = (0..<count).filter { $0 != alphaIndex }
        switch colors.count {
        case 1: colorModel = .gray
        case 3: colorModel = space == OPJ_CLRSPC_SYCC ? .ycc : .rgb
        case 4 where space == OPJ_CLRSPC_CMYK: colorModel = .cmyk
        default:
            throw .unsupported(
                "JPEG 2000 with \(colorCountWithoutAlpha) colour components in colour space \(space.rawValue)")
        }
        if space == OPJ_CLRSPC_EYCC { throw .unsupported("JPEG 2000 in e-YCC colour") }
        colorComponents = colors
        alphaComponent = alphaIndex
        isPremultiplied = alphaIndex.map { alpha[$0] == 2 } ?? false
    }

    /// The decoded `image` as a bitmap of the first colour component's (decoded) size; nil when the
    /// components carry no data.
    func bitmap(from image: UnsafePointer<opj_image_t>) -> Bitmap? {
        let components = image.pointee.comps!
        let reference = components[colorComponents[0]]
        let width = Int(reference.w), height = Int(reference.h)
        var used = colorComponents
        if let alphaComponent { used.append(alphaComponent) }
        for index in used {
            let component = components[index]
            guard component.data != nil, component.w > 0, component.h > 0, component.prec >= 1, component.prec <= 31
            else { return nil }
        }
        guard width > 0, height > 0, var bitmap = Bitmap(uninitializedWidth: width, height: height, format: format)
        else { return nil }
        let planes = used.map { ComponentPlane(components[$0], width: width, height: height) }
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

/// One decoded component, read as 8-bit samples on the output grid (nearest sample for
/// subsampled components).
private struct ComponentPlane {
    let data: UnsafeMutablePointer<Int32>
    let width: Int
    let height: Int
    let offset: Int32
    let maximum: Int32
    let precision: Int
    /// For each output column, the column of this component (nil when the sizes match).
    let columns: [Int]?
    let outputHeight: Int

    init(_ component: opj_image_comp_t, width outputWidth: Int, height outputHeight: Int) {
        data = component.data
        width = Int(component.w)
        height = Int(component.h)
        precision = Int(component.prec)
        offset = component.sgnd != 0 ? Int32(truncatingIfNeeded: 1 << (precision - 1)) : 0
        maximum = Int32(truncatingIfNeeded: (Int64(1) << precision) - 1)
        let sourceWidth = Int(component.w)
        columns =
            sourceWidth == outputWidth
            ? nil : (0..<outputWidth).map { min($0 * sourceWidth / outputWidth, sourceWidth - 1) }
        self.outputHeight = outputHeight
    }

    /// Fills `row` with output row `y` of this component as 8-bit samples.
    func fill(_ row: inout [UInt8], y: Int) {
        let sourceY = height == outputHeight ? y : min(y * height / outputHeight, height - 1)
        let source = data + sourceY * width
        let offset = offset, maximum = maximum, precision = precision
        row.withUnsafeMutableBufferPointer { out in
            let count = out.count
            @inline(__always) func sample(_ raw: Int32) -> UInt8 {
                let value = min(max(raw &+ offset, 0), maximum)
                if precision == 8 { return UInt8(truncatingIfNeeded: value) }
                if precision > 8 { return UInt8(truncatingIfNeeded: value >> Int32(precision - 8)) }
                return UInt8(truncatingIfNeeded: (value * 255 + maximum / 2) / maximum)
            }
            if let columns {
                for x in 0..<count { out[x] = sample(source[columns[x]]) }
            } else {
                for x in 0..<count { out[x] = sample(source[x]) }
            }
        }
    }
}
