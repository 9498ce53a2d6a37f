extension Bitmap {
    /// Fills `rows` with the colour a decoder shows where no pixel arrived: transparent black
    /// (`rgba8Premultiplied`), opaque black (`rgbx8`) or black (`gray8`).
    mutating func fillMissingRows(_ rows: Range<Int>) {
        guard !rows.isEmpty else { return }
        let stride = bytesPerRow, width = self.width, format = self.format
        withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            let start = base + rows.lowerBound * stride
            start.initializeMemory(as: UInt8.self, repeating: 0, count: rows.count * stride)
            guard format == .rgbx8 else { return }
            for y in rows {
                let row = (base + y * stride).assumingMemoryBound(to: UInt32.self)
                for x in 0..<width { row[x] = UInt32(littleEndian: 0xFF00_0000) }
            }
        }
    }
}
