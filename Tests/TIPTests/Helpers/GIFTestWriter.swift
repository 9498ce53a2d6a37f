import Foundation

/// A test-only raw GIF89a writer that controls every field: screen and frame descriptors, palettes,
/// graphics control and loop extensions, interlacing. Pixel data is LZW-coded without compression
/// (a clear code before the code table can grow, so every code is a literal of minCodeSize + 1 bits).
struct GIFTestWriter {
    typealias RGB = (UInt8, UInt8, UInt8)
    private(set) var bytes: [UInt8] = []
    /// Offsets just past each frame's data, in order.
    private(set) var frameEnds: [Int] = []

    init(width: Int, height: Int, globalPalette: [RGB]?, background: UInt8 = 0, signature: String = "GIF89a") {
        bytes += Array(signature.utf8)
        put16(width)
        put16(height)
        if let globalPalette {
            let bits = GIFTestWriter.bits(globalPalette.count)
            bytes.append(0x80 | 0x70 | UInt8(bits - 1))
            bytes.append(background)
            bytes.append(0)
            putPalette(globalPalette, bits: bits)
        } else {
            bytes += [0x70, background, 0]
        }
    }

    var data: Data { Data(bytes) }

    mutating func loop(_ count: Int, name: String = "NETSCAPE2.0") {
        bytes += [0x21, 0xFF, 11] + Array(name.utf8)
        bytes += [3, 1, UInt8(count & 0xFF), UInt8(count >> 8), 0]
    }

    mutating func control(disposal: Int = 0, delay: Int = 0, transparent: Int? = nil) {
        bytes += [0x21, 0xF9, 4, UInt8(disposal << 2) | (transparent != nil ? 1 : 0)]
        put16(delay)
        bytes += [UInt8(transparent ?? 0), 0]
    }

    mutating func comment(_ text: String) {
        bytes += [0x21, 0xFE]
        putSubBlocks(Array(text.utf8))
    }

    /// A frame whose `indices` are given row by row in display order (row-major, width x height).
    mutating func frame(
        left: Int = 0, top: Int = 0, width: Int, height: Int, indices: [UInt8],
        localPalette: [RGB]? = nil, interlaced: Bool = false, minCodeSize: Int = 8
    ) {
        precondition(indices.count == width * height)
        bytes.append(0x2C)
        put16(left); put16(top); put16(width); put16(height)
        var flags: UInt8 = interlaced ? 0x40 : 0
        var bits = 0
        if let localPalette {
            bits = GIFTestWriter.bits(localPalette.count)
            flags |= 0x80 | UInt8(bits - 1)
        }
        bytes.append(flags)
        if let localPalette { putPalette(localPalette, bits: bits) }
        var order: [Int] = []
        if interlaced {
            for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
                order += Array(stride(from: start, to: height, by: step))
            }
        } else {
            order = Array(0..<height)
        }
        var stream: [UInt8] = []
        for y in order { stream += indices[(y * width)..<((y + 1) * width)] }
        bytes.append(UInt8(minCodeSize))
        putSubBlocks(GIFTestWriter.literalLZW(stream, minCodeSize: minCodeSize))
        frameEnds.append(bytes.count)
    }

    mutating func trailer() { bytes.append(0x3B) }

    /// Appends raw bytes (for damaged files).
    mutating func raw(_ extra: [UInt8]) { bytes += extra }

    static func literalLZW(_ indices: [UInt8], minCodeSize m: Int) -> [UInt8] {
        let clear = 1 << m, end = clear + 1, width = m + 1
        let chunk = max(1, (1 << m) - 3)
        var out: [UInt8] = []
        var buffer = 0, count = 0
        func emit(_ code: Int) {
            buffer |= code << count
            count += width
            while count >= 8 {
                out.append(UInt8(buffer & 0xFF))
                buffer >>= 8
                count -= 8
            }
        }
        var i = 0
        while i < indices.count {
            emit(clear)
            for k in i..<min(indices.count, i + chunk) { emit(Int(indices[k])) }
            i += chunk
        }
        emit(end)
        if count > 0 { out.append(UInt8(buffer & 0xFF)) }
        return out
    }

    private static func bits(_ count: Int) -> Int {
        var bits = 1
        while 1 << bits < count { bits += 1 }
        return bits
    }

    private mutating func put16(_ v: Int) { bytes += [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }

    private mutating func putPalette(_ palette: [RGB], bits: Int) {
        for i in 0..<(1 << bits) {
            let c = i < palette.count ? palette[i] : (0, 0, 0)
            bytes += [c.0, c.1, c.2]
        }
    }

    private mutating func putSubBlocks(_ payload: [UInt8]) {
        var i = 0
        while i < payload.count {
            let n = min(255, payload.count - i)
            bytes.append(UInt8(n))
            bytes += payload[i..<(i + n)]
            i += n
        }
        bytes.append(0)
    }
}
