/// Which image of a fetch is being processed.
public enum ImageProcessingStage: Sendable, Equatable {
    /// The final image.
    case final
    /// A preview (a cached variant shown while the final image loads).
    case preview
    /// A progressive scan, with the share of the download received (0...1).
    case progressiveScan(progress: Float)
}
