/// How an image is fitted into target dimensions; the raw values are UIKit's `UIViewContentMode`.
///
/// Only the three `scale*` modes resize an image. The others only position it, so an image decoded
/// for them keeps its own dimensions.
public enum ContentMode: Int, Sendable, CaseIterable {
    /// Stretch to exactly the target dimensions, ignoring the aspect ratio.
    case scaleToFill = 0
    /// Scale, keeping the aspect ratio, so the whole image fits inside the target.
    case scaleAspectFit = 1
    /// Scale, keeping the aspect ratio, so the image covers the whole target.
    case scaleAspectFill = 2
    /// Redraw on bounds change (does not scale).
    case redraw = 3
    /// Centred, not scaled.
    case center = 4
    /// Top, not scaled.
    case top = 5
    /// Bottom, not scaled.
    case bottom = 6
    /// Left, not scaled.
    case left = 7
    /// Right, not scaled.
    case right = 8
    /// Top left, not scaled.
    case topLeft = 9
    /// Top right, not scaled.
    case topRight = 10
    /// Bottom left, not scaled.
    case bottomLeft = 11
    /// Bottom right, not scaled.
    case bottomRight = 12

    /// Whether this mode resizes images (`scaleToFill`, `scaleAspectFit`, `scaleAspectFill`).
    public var doesScale: Bool {
        switch self {
        case .scaleToFill, .scaleAspectFit, .scaleAspectFill: return true
        default: return false
        }
    }
}
