import Foundation

/// Decides when a fetch renders a progressive image's scans (TIP's `TIPImageFetchProgressiveLoadingPolicy`).
/// Asked after every chunk once the delegate agreed to progressive loading.
public protocol ImageFetchProgressiveLoadingPolicy: Sendable {
    /// What to render now: `frameProgress` is what the latest bytes achieved, `frameCount` the completed
    /// scans, `progress` the download progress (below 1 while bytes arrive), `renderCount` the scans
    /// already rendered for `operation`.
    func behavior(
        for operation: ImageFetchOperation, frameProgress: ImageFetchProgress, frameCount: Int, progress: Float,
        type: ImageType, dimensions: CGSize, renderCount: Int
    ) -> ImageFetchProgressUpdateBehavior
}

/// Full frames only: the first render (when low-quality first scans are allowed, or two scans are in) and
/// the last (TIP's `FirstAndLastFrame`).
public struct FirstAndLastFrameProgressiveLoadingPolicy: ImageFetchProgressiveLoadingPolicy {
    /// Whether a one-scan first render is allowed. Default true.
    public var shouldRenderLowQualityFrame: Bool
    /// A policy; the default allows low-quality first frames.
    public init(shouldRenderLowQualityFrame: Bool = true) {
        self.shouldRenderLowQualityFrame = shouldRenderLowQualityFrame
    }
    /// Renders a full frame when it is the first render (one scan when allowed, else two) or the last.
    public func behavior(
        for operation: ImageFetchOperation, frameProgress: ImageFetchProgress, frameCount: Int, progress: Float,
        type: ImageType, dimensions: CGSize, renderCount: Int
    ) -> ImageFetchProgressUpdateBehavior {
        ProgressiveLoadingRules.firstAndLastFrame(
            .init(
                frameProgress: frameProgress, frameCount: frameCount, progress: progress,
                renderCount: renderCount),
            shouldRenderLowQualityFrame: shouldRenderLowQualityFrame)
    }
}

/// Every full frame from the second scan on; the first scan alone when allowed or past 20% (TIP's
/// `FullFrame`, the default for JPEG).
public struct FullFrameProgressiveLoadingPolicy: ImageFetchProgressiveLoadingPolicy {
    /// Whether a one-scan render is allowed before 20%. Default true.
    public var shouldRenderLowQualityFrame: Bool
    /// A policy; the default allows low-quality first frames.
    public init(shouldRenderLowQualityFrame: Bool = true) {
        self.shouldRenderLowQualityFrame = shouldRenderLowQualityFrame
    }
    /// Renders every full frame of two scans or more, and one scan when allowed or past 20%.
    public func behavior(
        for operation: ImageFetchOperation, frameProgress: ImageFetchProgress, frameCount: Int, progress: Float,
        type: ImageType, dimensions: CGSize, renderCount: Int
    ) -> ImageFetchProgressUpdateBehavior {
        ProgressiveLoadingRules.fullFrame(
            .init(
                frameProgress: frameProgress, frameCount: frameCount, progress: progress,
                renderCount: renderCount),
            shouldRenderLowQualityFrame: shouldRenderLowQualityFrame)
    }
}

/// Any progress past a minimum, incomplete scans included (TIP's `Greedy`).
public struct GreedyProgressiveLoadingPolicy: ImageFetchProgressiveLoadingPolicy {
    /// Progress to pass first. Default 0.
    public var minimumProgress: Float
    /// A policy rendering any progress past `minimumProgress`.
    public init(minimumProgress: Float = 0) { self.minimumProgress = minimumProgress }
    /// Renders any advance (incomplete scans too) once `progress` is past `minimumProgress`.
    public func behavior(
        for operation: ImageFetchOperation, frameProgress: ImageFetchProgress, frameCount: Int, progress: Float,
        type: ImageType, dimensions: CGSize, renderCount: Int
    ) -> ImageFetchProgressUpdateBehavior {
        ProgressiveLoadingRules.greedy(
            .init(
                frameProgress: frameProgress, frameCount: frameCount, progress: progress,
                renderCount: renderCount), minimumProgress: minimumProgress)
    }
}

/// The first opportunity past a minimum, then the last full frame (TIP's `FirstAndLastOpportunity`).
public struct FirstAndLastOpportunityProgressiveLoadingPolicy: ImageFetchProgressiveLoadingPolicy {
    /// Progress to pass before the first render. Default 0.
    public var minimumProgress: Float
    /// A policy rendering once past `minimumProgress`, then at the end.
    public init(minimumProgress: Float = 0) { self.minimumProgress = minimumProgress }
    /// Renders the first advance past `minimumProgress` (incomplete scans too), then the full frame at the end.
    public func behavior(
        for operation: ImageFetchOperation, frameProgress: ImageFetchProgress, frameCount: Int, progress: Float,
        type: ImageType, dimensions: CGSize, renderCount: Int
    ) -> ImageFetchProgressUpdateBehavior {
        ProgressiveLoadingRules.firstAndLastOpportunity(
            .init(
                frameProgress: frameProgress, frameCount: frameCount,
                progress: progress, renderCount: renderCount),
            minimumProgress: minimumProgress)
    }
}

/// Never renders scans (TIP's `Disabled`).
public struct DisabledProgressiveLoadingPolicy: ImageFetchProgressiveLoadingPolicy {
    /// The policy.
    public init() {}
    /// Always `.none`.
    public func behavior(
        for operation: ImageFetchOperation, frameProgress: ImageFetchProgress, frameCount: Int, progress: Float,
        type: ImageType, dimensions: CGSize, renderCount: Int
    ) -> ImageFetchProgressUpdateBehavior { .none }
}

/// TIP's default policies by type.
public enum ImageFetchProgressiveLoadingPolicies {
    /// `public.jpeg`: full frame (TIP's 64-bit default).
    public static var defaults: [ImageType: any ImageFetchProgressiveLoadingPolicy] {
        [.jpeg: FullFrameProgressiveLoadingPolicy()]
    }
}
