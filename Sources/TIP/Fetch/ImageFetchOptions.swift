import Foundation

/// How a fetch treats the caches (TIP's `TIPImageFetchOptions`).
public struct ImageFetchOptions: OptionSet, Sendable, Hashable {
    /// The bits.
    public let rawValue: Int
    /// Options from raw bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Reads of the entries this fetch touches do not refresh their expiry or recency (1).
    public static let doNotResetExpiryOnAccess = ImageFetchOptions(rawValue: 1)
    /// The image is a placeholder: never rendered-cached, partials never kept, displaced by any real image (2).
    public static let treatAsPlaceholder = ImageFetchOptions(rawValue: 2)
    /// The delivered image is not stored in the rendered-image cache (4).
    public static let skipStoringToRenderedCache = ImageFetchOptions(rawValue: 4)
}
