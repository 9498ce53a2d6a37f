import Foundation

/// Where a fetch is (TIP's `TIPImageFetchOperationState`): positive while active, negative once finished.
/// Active states only move forward.
public enum ImageFetchOperationState: Int, Sendable, Comparable {
    /// Created, not started.
    case idle = 0
    /// Started.
    case starting = 1
    /// Looking in the memory caches.
    case loadingFromMemory = 2
    /// Looking in the disk caches.
    case loadingFromDisk = 3
    /// Asking the additional caches.
    case loadingFromAdditionalCache = 4
    /// Downloading.
    case loadingFromNetwork = 5
    /// Cancelled.
    case cancelled = -1
    /// Failed.
    case failed = -2
    /// Delivered the final image.
    case succeeded = -100

    /// Whether the fetch is running.
    public var isActive: Bool { rawValue > 0 }
    /// Whether the fetch is over.
    public var isFinished: Bool { rawValue < 0 }

    /// Orders by raw value.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
