import Foundation

/// Picks at most `maximumColors` palette colours for one frame and maps its pixels to them.
///
/// ```swift
/// let quantizer = GIFColorQuantizer(pixels: packed, count: n, maximumColors: 255)
/// let index = quantizer.index(of: packed[0])
/// ```
///
/// Pixels are packed `r | g << 8 | b << 16`; a pixel with bit 24 set is transparent and ignored.
/// When the frame has no more distinct colours than allowed, the palette is exactly those colours
/// (a lossless round trip). Otherwise median cut runs over a 5-bit-per-channel histogram: the box
/// with the most pixels times its widest side is split at its pixel median along that side, and
/// each box becomes the mean of its pixels. Pixels map to the palette colour nearest to the mean of
/// their histogram cell. No dithering. Not shared between threads.
struct GIFColorQuantizer {
    /// The palette colours, packed like the pixels.
    private(set) var palette: [UInt32] = []
    private var exact: ExactTable?
    private var cellIndex: [Int16] = []
    private var cellMean: [UInt32] = []

    /// The marker bit of a transparent packed pixel.
    static let transparentBit: UInt32 = 1 << 24

    init(pixels: UnsafePointer<UInt32>, count: Int, maximumColors: Int) {
        if let table = ExactTable(pixels: pixels, count: count, limit: maximumColors) {
            palette = table.colors
            exact = table
            return
        }
        medianCut(pixels: pixels, count: count, maximumColors: maximumColors)
    }

    /// The palette index for an opaque packed pixel.
    mutating func index(of pixel: UInt32) -> UInt8 {
        if let exact { return exact.index(of: pixel) }
        let cell = Int(GIFColorQuantizer.cell(of: pixel))
        let cached = cellIndex[cell]
        if cached >= 0 { return UInt8(cached) }
        let target = cellMean[cell]
        let tr = Int(target & 0xFF), tg = Int(target >> 8 & 0xFF), tb = Int(target >> 16 & 0xFF)
        var best = 0, bestDistance = Int.max
        for (i, colour) in palette.enumerated() {
            let dr = Int(colour & 0xFF) - tr, dg = Int(colour >> 8 & 0xFF) - tg, db = Int(colour >> 16 & 0xFF) - tb
            let distance = 3 * dr * dr + 4 * dg * dg + 2 * db * db
            if distance < bestDistance {
                bestDistance = distance
                best = i
            }
        }
        cellIndex[cell] = Int16(best)
        return UInt8(best)
    }

    private static func cell(of pixel: UInt32) -> UInt32 {
        (pixel >> 3 & 0x1F) | (pixel >> 11 & 0x1F) << 5 | (pixel >> 19 & 0x1F) << 10
    }

    private mutating func medianCut(pixels: UnsafePointer<UInt32>, count: Int, maximumColors: Int) {
        let cells = 1 << 15
        var population = [Int](repeating: 0, count: cells)
        var sums = [Int](repeating: 0, count: cells * 3)
        for i in 0..<count {
            let p = pixels[i]
            if p & GIFColorQuantizer.transparentBit != 0 { continue }
            let c = Int(GIFColorQuantizer.cell(of: p))
            population[c] += 1
            sums[c * 3] += Int(p & 0xFF)
            sums[c * 3 + 1] += Int(p >> 8 & 0xFF)
            sums[c * 3 + 2] += Int(p >> 16 & 0xFF)
        }
        cellMean = [UInt32](repeating: 0, count: cells)
        var used: [Int] = []
        for c in 0..<cells where population[c] > 0 {
            let n = population[c]
            let r = (sums[c * 3] + n / 2) / n, g = (sums[c * 3 + 1] + n / 2) / n, b = (sums[c * 3 + 2] + n / 2) / n
            cellMean[c] = UInt32(r) | UInt32(g) << 8 | UInt32(b) << 16
            used.append(c)
        }
        cellIndex = [Int16](repeating: -1, count: cells)
        guard !used.isEmpty else { return }

        func channel(_ c: Int, _ axis: Int) -> Int { c >> (5 * axis) & 0x1F }
        // Each box is a range of `used`; sorted in place when split.
        var boxes: [Range<Int>] = [0..<used.count]
        func widest(_ box: Range<Int>) -> (axis: Int, extent: Int, pixels: Int) {
            var lo = [31, 31, 31], hi = [0, 0, 0], pixels = 0
            for k in box {
                let c = used[k]
                pixels += population[c]
                for axis in 0..<3 {
                    lo[axis] = min(lo[axis], channel(c, axis))
                    hi[axis] = max(hi[axis], channel(c, axis))
                }
            }
            var axis = 0
            for a in 1..<3 where hi[a] - lo[a] > hi[axis] - lo[axis] { axis = a }
            return (axis, hi[axis] - lo[axis], pixels)
        }
        while boxes.count < maximumColors {
            var choice = -1, bestScore = 0, bestAxis = 0
            for (i, box) in boxes.enumerated() where box.count > 1 {
                let w = widest(box)
                let score = w.pixels * w.extent
                if score > bestScore {
                    bestScore = score
                    choice = i
                    bestAxis = w.axis
                }
            }
            guard choice >= 0 else { break }
            let box = boxes[choice]
            used[box].sort { channel($0, bestAxis) < channel($1, bestAxis) }
            let total = box.reduce(0) { $0 + population[used[$1]] }
            var running = 0, split = box.lowerBound + 1
            for k in box {
                running += population[used[k]]
                if running * 2 >= total {
                    split = k + 1
                    break
                }
            }
            split = min(max(split, box.lowerBound + 1), box.upperBound - 1)
            boxes[choice] = box.lowerBound..<split
            boxes.append(split..<box.upperBound)
        }
        palette = boxes.map { box in
            var n = 0, r = 0, g = 0, b = 0
            for k in box {
                let c = used[k]
                n += population[c]
                r += sums[c * 3]
                g += sums[c * 3 + 1]
                b += sums[c * 3 + 2]
            }
            return UInt32((r + n / 2) / n) | UInt32((g + n / 2) / n) << 8 | UInt32((b + n / 2) / n) << 16
        }
    }

    /// The distinct opaque colours of a frame with few enough of them, in an open-addressing table.
    private struct ExactTable {
        var colors: [UInt32] = []
        private var keys: [UInt32]
        private var values: [UInt8]
        private let mask: Int
        private static let empty: UInt32 = .max

        init?(pixels: UnsafePointer<UInt32>, count: Int, limit: Int) {
            let capacity = 1024
            mask = capacity - 1
            keys = [UInt32](repeating: ExactTable.empty, count: capacity)
            values = [UInt8](repeating: 0, count: capacity)
            var last = ExactTable.empty
            for i in 0..<count {
                let p = pixels[i]
                if p == last || p & GIFColorQuantizer.transparentBit != 0 { continue }
                last = p
                var slot = ExactTable.hash(p) & mask
                while keys[slot] != ExactTable.empty && keys[slot] != p { slot = (slot + 1) & mask }
                if keys[slot] == p { continue }
                if colors.count >= limit { return nil }
                keys[slot] = p
                values[slot] = UInt8(colors.count)
                colors.append(p)
            }
        }

        func index(of pixel: UInt32) -> UInt8 {
            var slot = ExactTable.hash(pixel) & mask
            while keys[slot] != pixel {
                if keys[slot] == ExactTable.empty { return 0 }
                slot = (slot + 1) & mask
            }
            return values[slot]
        }

        private static func hash(_ p: UInt32) -> Int { Int((p &* 0x9E37_79B1) >> 16) }
    }
}
