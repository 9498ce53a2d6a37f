import Foundation

/// A one-dimensional reconstruction kernel used by ``Resampler``, with its support radius in source
/// pixels at scale 1. When shrinking, the weights builder stretches the kernel by the scale factor.
enum ResamplingFilter: Sendable, CaseIterable {
    /// Nearest neighbour: the source pixel whose centre is closest.
    case nearest
    /// Triangle (tent): linear interpolation.
    case triangle
    /// Catmull-Rom cubic (B = 0, C = 0.5).
    case catmullRom
    /// Lanczos windowed sinc with three lobes.
    case lanczos3

    /// The filter `quality` selects.
    init(_ quality: InterpolationQuality) {
        switch quality {
        case .none: self = .nearest
        case .low: self = .triangle
        case .medium: self = .catmullRom
        case .high, .default: self = .lanczos3
        }
    }

    /// Radius beyond which the kernel is zero, in source pixels at scale 1.
    var support: Double {
        switch self {
        case .nearest: return 0.5
        case .triangle: return 1
        case .catmullRom: return 2
        case .lanczos3: return 3
        }
    }

    /// The kernel's value at distance `x` (in kernel units) from the sample centre.
    func value(at x: Double) -> Double {
        let d = abs(x)
        switch self {
        case .nearest:
            return d < 0.5 ? 1 : 0
        case .triangle:
            return d < 1 ? 1 - d : 0
        case .catmullRom:
            if d < 1 { return (1.5 * d - 2.5) * d * d + 1 }
            if d < 2 { return ((-0.5 * d + 2.5) * d - 4) * d + 2 }
            return 0
        case .lanczos3:
            if d < 1e-9 { return 1 }
            if d >= 3 { return 0 }
            let px = Double.pi * d
            return 3 * sin(px) * sin(px / 3) / (px * px)
        }
    }
}
