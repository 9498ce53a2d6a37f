import Foundation

/// GIF frame delays and loop counts, as browsers and TIP interpret them.
///
/// ```swift
/// GIFFrameTiming.duration(centiseconds: 0)    // 0.1: too-short delays play at the default speed
/// GIFFrameTiming.centiseconds(duration: 0.04) // 4
/// ```
enum GIFFrameTiming {
    /// Seconds a frame with a delay of `centiseconds` (1/100 s) is shown.
    ///
    /// Delays of 0 or 1 centisecond (≤ 0.01 s) become ``ImageContainer/defaultFrameDuration``
    /// (0.1 s): TIP's rule for every animated format (``AnimationFrameTiming``).
    static func duration(centiseconds: Int) -> TimeInterval {
        AnimationFrameTiming.duration(seconds: TimeInterval(centiseconds) / 100)
    }

    /// The delay in centiseconds written for a frame shown `duration` seconds: rounded, at least 2
    /// (0.02 s, the shortest delay browsers honour) and at most 65535.
    static func centiseconds(duration: TimeInterval) -> Int {
        guard duration.isFinite, duration > 0 else { return 10 }
        let value = (duration * 100).rounded()
        return Int(min(65535, max(2, value)))
    }

    /// The loop count an animation without a NETSCAPE2.0 / ANIMEXTS1.0 block gets: 1 (plays once).
    /// 0 is reserved for "forever", which needs the block with a value of 0.
    static let loopCountWithoutLoopBlock = 1
}
