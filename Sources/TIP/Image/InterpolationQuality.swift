/// The resampling filter used when an image is resized (TIP's `CGInterpolationQuality` translated).
public enum InterpolationQuality: Int, Sendable, CaseIterable {
    /// The library's choice: Lanczos with two lobes for reductions of at most 2x on each axis (every JPEG
    /// decoded to a target size, after DCT scaling), about a third cheaper than `high` and within 40 dB PSNR
    /// of it; otherwise the same as `high`.
    case `default` = 0
    /// Nearest neighbour: no filtering.
    case none = 1
    /// Triangle (bilinear) filter, widened when shrinking.
    case low = 2
    /// Catmull-Rom cubic filter, widened when shrinking.
    case medium = 3
    /// Lanczos (3 lobes) filter, widened when shrinking.
    case high = 4
}
