/// How far an animation's decoding may go, in pixels, so that neither its frames' memory nor its work grows
/// without bound: the frames kept (at the size they are kept: the output size when frames are scaled) total at
/// most ``keptMultiple`` x the pixel limit, and the frames worked through (each frame's canvas or output,
/// whichever is larger, plus its own rectangle) at most ``workMultiple`` x the limit. A 110-frame 1920x1080
/// animation kept at 200x113 fits; ten thousand 1x1 frames on a 10000x10000 canvas stop early.
package struct AnimationPixelBudget: Sendable {
    /// Kept frames may total this multiple of the pixel limit.
    package static let keptMultiple = 2
    /// Frames worked through may total this multiple of the pixel limit.
    package static let workMultiple = 16

    private var keptLeft: Int
    private var workLeft: Int

    /// The budget of a decode with `maximumPixelCount` as its pixel limit.
    package init(maximumPixelCount: Int) {
        let limit = max(0, maximumPixelCount)
        let (kept, keptOverflow) = limit.multipliedReportingOverflow(by: Self.keptMultiple)
        let (work, workOverflow) = limit.multipliedReportingOverflow(by: Self.workMultiple)
        keptLeft = keptOverflow ? Int.max : kept
        workLeft = workOverflow ? Int.max : work
    }

    /// Takes one frame kept at `kept` pixels that costs `work` pixels; false (nothing taken) when it does not fit.
    package mutating func take(kept: Int, work: Int) -> Bool {
        guard kept <= keptLeft, work <= workLeft else { return false }
        keptLeft -= kept
        workLeft -= work
        return true
    }

    /// How many frames of `kept` and `work` pixels each fit (at least 1).
    package func frameCount(kept: Int, work: Int) -> Int {
        max(1, min(keptLeft / max(kept, 1), workLeft / max(work, 1)))
    }
}
