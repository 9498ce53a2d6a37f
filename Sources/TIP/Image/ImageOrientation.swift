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
        guard var out = Bitmap(uninitializedWidth: outW, height: outH, format: format) else {
            preconditionFailure("applyingOrientation: a bitmap of the same size could not be allocated")
        }
        let bpp = format.bytesPerPixel
        let (w, h, stride) = (width, height, bytesPerRow)
        // The stored pixel shown at display position (x, y) sits at origin + x * stepX + y * stepY.
        let (origin, stepX, stepY): (Int, Int, Int)
        switch orientation {
        case .up: (origin, stepX, stepY) = (0, bpp, stride)
        case .upMirrored: (origin, stepX, stepY) = ((w - 1) * bpp, -bpp, stride)
        case .down: (origin, stepX, stepY) = ((h - 1) * stride + (w - 1) * bpp, -bpp, -stride)
        case .downMirrored: (origin, stepX, stepY) = ((h - 1) * stride, bpp, -stride)
        case .leftMirrored: (origin, stepX, stepY) = (0, stride, bpp)
        case .right: (origin, stepX, stepY) = ((h - 1) * stride, -stride, bpp)
        case .rightMirrored: (origin, stepX, stepY) = ((h - 1) * stride + (w - 1) * bpp, -stride, -bpp)
        case .left: (origin, stepX, stepY) = ((w - 1) * bpp, stride, -bpp)
        }
        let dstStride = out.bytesPerRow
        withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                guard let s = src.baseAddress, let d = dst.baseAddress else { return }
                if stepX == bpp {
                    // Rows stay rows: whole-row copies.
                    for y in 0..<outH {
                        (d + y * dstStride).copyMemory(from: s + origin + y * stepY, byteCount: outW * bpp)
                    }
                    return
                }
                // Square tiles keep the column-wise reads of a transpose inside the cache.
                let tile = 32
                for tileY in Swift.stride(from: 0, to: outH, by: tile) {
                    let yEnd = min(outH, tileY + tile)
                    for tileX in Swift.stride(from: 0, to: outW, by: tile) {
                        let xEnd = min(outW, tileX + tile)
                        for y in tileY..<yEnd {
                            var p = s + origin + y * stepY + tileX * stepX
                            let row = d + y * dstStride
                            if bpp == 4 {
                                for x in tileX..<xEnd {
                                    row.storeBytes(of: p.load(as: UInt32.self), toByteOffset: x * 4, as: UInt32.self)
                                    p += stepX
                                }
                            } else {
                                for x in tileX..<xEnd {
                                    row.storeBytes(of: p.load(as: UInt8.self), toByteOffset: x, as: UInt8.self)
                                    p += stepX
                                }
                            }
                        }
                    }
                }
            }
        }
        return out
    }
}
