/// EXIF orientation (tag 0x0112): how stored pixels must be turned to be displayed upright.
public enum ImageOrientation: Int, Sendable, CaseIterable {
    /// Stored upright.
    case up = 1
    /// Mirrored left to right.
    case upMirrored = 2
    /// Rotated 180°.
    case down = 3
    /// Mirrored top to bottom.
    case downMirrored = 4
    /// Mirrored along the top-left to bottom-right diagonal (transpose).
    case leftMirrored = 5
    /// Stored rotated 90° counter-clockwise: display turns it 90° clockwise.
    case right = 6
    /// Mirrored along the top-right to bottom-left diagonal (transverse).
    case rightMirrored = 7
    /// Stored rotated 90° clockwise: display turns it 90° counter-clockwise.
    case left = 8

    /// Whether displaying swaps width and height (orientations 5 to 8).
    public var swapsDimensions: Bool { rawValue >= 5 }
}

extension Bitmap {
    /// This bitmap turned upright for `orientation` (a no-op for `.up`).
    public func applyingOrientation(_ orientation: ImageOrientation) -> Bitmap {
        if orientation == .up { return self }
        let outW = orientation.swapsDimensions ? height : width
        let outH = orientation.swapsDimensions ? width : height
        var out = Bitmap(uninitializedWidth: outW, height: outH, format: format)!
        let bpp = format.bytesPerPixel
        let w = width, h = height, srcStride = bytesPerRow, dstStride = out.bytesPerRow
        withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                let s = src.baseAddress!, d = dst.baseAddress!
                for y in 0..<outH {
                    let dRow = d + y * dstStride
                    for x in 0..<outW {
                        // (sx, sy): the stored pixel shown at display position (x, y).
                        let sx: Int, sy: Int
                        switch orientation {
                        case .up: (sx, sy) = (x, y)
                        case .upMirrored: (sx, sy) = (w - 1 - x, y)
                        case .down: (sx, sy) = (w - 1 - x, h - 1 - y)
                        case .downMirrored: (sx, sy) = (x, h - 1 - y)
                        case .leftMirrored: (sx, sy) = (y, x)
                        case .right: (sx, sy) = (y, h - 1 - x)
                        case .rightMirrored: (sx, sy) = (w - 1 - y, h - 1 - x)
                        case .left: (sx, sy) = (w - 1 - y, x)
                        }
                        let sp = s + sy * srcStride + sx * bpp
                        if bpp == 4 {
                            (dRow + x * 4).copyMemory(from: sp, byteCount: 4)
                        } else {
                            dRow.storeBytes(of: sp.load(as: UInt8.self), toByteOffset: x, as: UInt8.self)
                        }
                    }
                }
            }
        }
        return out
    }
}
