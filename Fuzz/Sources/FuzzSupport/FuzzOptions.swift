import Foundation
import TIP

/// Decoding options that bound memory, so an out-of-memory finding is a real bug and not a large,
/// legitimate image.
public enum FuzzOptions {
    /// One megapixel (4 MB as RGBA): large enough for every code path, small enough that a header
    /// claiming a big canvas costs milliseconds, not seconds, per execution.
    public static let maximumPixelCount = 1 << 20

    /// One of four sizings, picked by the input's length so a reproducer replays identically: the
    /// image's own size, a small aspect fit, an aspect fill, and an odd-sized fill.
    public static func decoding(for size: Int) -> ImageDecodingOptions {
        let (dimensions, mode) = sizing(for: size)
        return ImageDecodingOptions(
            targetDimensions: dimensions, targetContentMode: mode, maximumPixelCount: maximumPixelCount)
    }

    /// The target dimensions and content mode ``decoding(for:)`` uses for an input of `size` bytes.
    public static func sizing(for size: Int) -> (CGSize, ContentMode) {
        switch size % 4 {
        case 0: return (.zero, .center)
        case 1: return (CGSize(width: 64, height: 64), .scaleAspectFit)
        case 2: return (CGSize(width: 200, height: 100), .scaleAspectFill)
        default: return (CGSize(width: 33, height: 17), .scaleToFill)
        }
    }
}
