/// The three kinds of cache every pipeline has (TIP's `TIPImageCacheType`).
public enum ImageCacheType: Int, Sendable, CaseIterable {
    /// Decoded images at the sizes they were displayed, looked up synchronously.
    case rendered = 0
    /// Encoded image bytes in memory (the largest complete variant and at most one partial).
    case memory = 1
    /// Encoded image files on disk (the largest complete variant and at most one partial).
    case disk = 2
}
