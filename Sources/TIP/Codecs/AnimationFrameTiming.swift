import Foundation

/// TIP's rule for the delays animated formats carry (GIF, APNG): what a stored delay means on screen.
///
/// ```swift
/// AnimationFrameTiming.duration(seconds: 0)      // 0.1: too-short delays play at the default speed
/// AnimationFrameTiming.duration(seconds: 0.04)   // 0.04
/// ```
enum AnimationFrameTiming {
    /// Stored delays up to this many seconds (0.01 s, 0 included) are shown for
    /// ``ImageContainer/defaultFrameDuration`` instead, as TIP does (it replaces any delay below
    /// 0.01 s plus a float epsilon by 0.1 s) and as browsers do: many animations carry such delays
    /// and expect the default speed.
    static let shortestHonouredDelay: TimeInterval = 0.01

    /// Seconds a frame with a stored delay of `seconds` is shown.
    static func duration(seconds: TimeInterval) -> TimeInterval {
        // TIP compares in single precision with FLT_EPSILON of slack: 1/100 s stays "too short".
        guard seconds.isFinite, seconds > shortestHonouredDelay + Double(Float.ulpOfOne) else {
            return ImageContainer.defaultFrameDuration
        }
        return seconds
    }

}
