import COpenJPEG

/// One decoded component, read as 8-bit samples on the output grid: the grid of a reference
/// component (the first colour component), each output sample taking the component's sample that
/// covers it on the reference grid (nearest-sample upsampling of subsampled chroma).
struct JPEG2000ComponentPlane {
    private let data: UnsafeMutablePointer<Int32>
    private let width: Int
    private let offset: Int32
    private let maximum: Int32
    private let precision: Int
    /// For each output column, the column of this component (nil when the grids coincide).
    private let columns: [Int]?
    /// For each output row, the row of this component (nil when the grids coincide).
    private let rows: [Int]?

    /// `component` on the grid of `reference` (both from the same decoded image, with data, sizes of at
    /// least 1 and a precision of 1 to 31 bits).
    init(_ component: opj_image_comp_t, reference: opj_image_comp_t) {
        data = component.data
        width = Int(component.w)
        precision = Int(component.prec)
        offset = component.sgnd != 0 ? Int32(truncatingIfNeeded: 1 << (precision - 1)) : 0
        maximum = Int32(truncatingIfNeeded: (Int64(1) << precision) - 1)
        let factor = component.factor
        columns = JPEG2000ComponentAxis(
            origin: component.x0, step: component.dx, count: component.w, factor: factor
        ).samples(
            along: JPEG2000ComponentAxis(origin: reference.x0, step: reference.dx, count: reference.w, factor: factor))
        rows = JPEG2000ComponentAxis(
            origin: component.y0, step: component.dy, count: component.h, factor: factor
        ).samples(
            along: JPEG2000ComponentAxis(origin: reference.y0, step: reference.dy, count: reference.h, factor: factor))
    }

    /// Fills `row` (the output width) with output row `y` of this component as 8-bit samples.
    func fill(_ row: inout [UInt8], y: Int) {
        let source = data + (rows?[y] ?? y) * width
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

/// One axis of a decoded component: its first sample (in its own samples at the decoded resolution),
/// the reference-grid distance between its samples (`dx` or `dy`) and how many samples it has.
struct JPEG2000ComponentAxis: Equatable {
    /// Index of the first sample on the component's own (reduced) grid.
    let start: Int
    /// Subsampling factor on the reference grid (at least 1).
    let step: Int
    /// Number of samples.
    let count: Int

    /// The axis of a component whose OpenJPEG origin is `origin` (its `x0` or `y0`: full resolution, in
    /// its own samples), subsampled by `step`, with `count` samples decoded at reduction `factor`.
    init(origin: UInt32, step: UInt32, count: UInt32, factor: UInt32) {
        let shift = Int(min(factor, 31))
        start = (Int(origin) + (1 << shift) - 1) >> shift
        self.step = max(Int(step), 1)
        self.count = Int(count)
    }

    /// For each sample of `reference`, the index of this axis's sample covering the same reference-grid
    /// position (clamped to this axis); nil when both axes are the same.
    func samples(along reference: JPEG2000ComponentAxis) -> [Int]? {
        guard self != reference, count > 0 else { return nil }
        return (0..<reference.count).map { index in
            min(max((reference.start + index) * reference.step / step - start, 0), count - 1)
        }
    }
}
