import Foundation

/// How urgent a fetch is (TIP's priorities, which are free integers rather than the five
/// `Operation.QueuePriority` cases). A shared download runs at the highest priority of its fetches.
///
/// ```swift
/// let urgent = ImageFetchPriority.high
/// let nearlyIdle = ImageFetchPriority(rawValue: -7)
/// ```
public struct ImageFetchPriority: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The priority; TIP's named values are -8, -4, 0, 4 and 8, but any integer is allowed.
    public var rawValue: Int

    /// A priority with any integer value.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// -8.
    public static let veryLow = ImageFetchPriority(rawValue: -8)
    /// -4.
    public static let low = ImageFetchPriority(rawValue: -4)
    /// 0, the default.
    public static let normal = ImageFetchPriority(rawValue: 0)
    /// 4.
    public static let high = ImageFetchPriority(rawValue: 4)
    /// 8.
    public static let veryHigh = ImageFetchPriority(rawValue: 8)

    /// The lowest priority a download runs at: `veryLow + 1` (as TIP).
    static let downloadFloor = ImageFetchPriority(rawValue: -7)

    /// Orders by raw value.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The raw value.
    public var description: String { String(rawValue) }

    /// The nearest of the five queue priorities (values between two named ones go to the closer, ties upward).
    public var queuePriority: Operation.QueuePriority {
        switch rawValue {
        case ..<(-6): return .veryLow
        case -6 ..< -2: return .low
        case -2..<2: return .normal
        case 2..<6: return .high
        default: return .veryHigh
        }
    }
}
