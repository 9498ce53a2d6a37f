extension AnimationCanvas {
    /// Draws `count` palette indices starting at canvas column `x` of row `y` (which may be off the
    /// canvas: the row is clipped). `palette` has 256 entries; an entry of 0 means "leave the pixel"
    /// (GIF's transparent index, and indices past the colour table).
    func drawRow(_ indices: UnsafePointer<UInt8>, count: Int, x: Int, y: Int, palette: UnsafePointer<UInt32>) {
        guard y >= 0, y < height else { return }
        let start = max(0, x), end = min(width, x + count)
        guard start < end else { return }
        let row = pixels + y * width
        var i = start
        var source = indices + (start - x)
        while i < end {
            let colour = palette[Int(source.pointee)]
            if colour != 0 { row[i] = colour }
            i += 1
            source += 1
        }
    }
}
