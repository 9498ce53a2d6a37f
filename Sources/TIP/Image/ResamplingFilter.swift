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
    /// Lanczos windowed sinc with two lobes: for mild reductions (see
    /// ``init(_:sourceWidth:sourceHeight:width:height:)``).
    case lanczos2
    /// Lanczos windowed sinc with three lobes.
    case lanczos3

    /// The filter `quality` selects for resizing `sourceWidth` x `sourceHeight` pixels to `width` x `height`.
    ///
    /// `.default` picks Lanczos-2 for a mild reduction (the image gets smaller, by at most 2x on each axis:
    /// what a JPEG decode leaves after DCT scaling), Lanczos-3 otherwise. There the two lobes cost about a
    /// third fewer taps and differ from Lanczos-3 by less than the eye sees: 43-48 dB PSNR on the shared
    /// fixtures' photos (README, Benchmarks), checked ≥ 40 dB by the tests.
    init(_ quality: InterpolationQuality, sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) {
        switch quality {
        case .none: self = .nearest
        case .low: self = .triangle
        case .medium: self = .catmullRom
        case .high: self = .lanczos3
        case .default:
            let shrinks =
                width <= sourceWidth && height <= sourceHeight && (width < sourceWidth || height < sourceHeight)
            let mild = sourceWidth <= 2 * width && sourceHeight <= 2 * height
            self = shrinks && mild ? .lanczos2 : .lanczos3
        }
    }

    /// Radius beyond which the kernel is zero, in source pixels at scale 1.
    var support: Double {
        switch self {
        case .nearest: return 0.5
        case .triangle: return 1
        case .catmullRom: return 2
        case .lanczos2: return 2
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
        case .lanczos2, .lanczos3:
            let lobes = support
            if d < 1e-9 { return 1 }
            if d >= lobes { return 0 }
            let px = Double.pi * d
            return lobes * sin(px) * sin(px / lobes) / (px * px)
        }
    }
}
