/// The resampling filter used when an image is resized (TIP's `CGInterpolationQuality` translated).
public enum InterpolationQuality: Int, Sendable, CaseIterable {
    /// The library's choice: currently the same as `high`.
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
