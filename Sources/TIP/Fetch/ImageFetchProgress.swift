import Foundation

/// What the latest bytes of a progressive image achieved (TIP's `TIPImageFetchProgress`).
public enum ImageFetchProgress: Int, Sendable {
    /// Nothing new.
    case none = 0
    /// Bytes arrived but no frame or scan completed.
    case partialFrame = 1
    /// One or more frames or scans completed.
    case fullFrame = 2
}

/// What a progressive loading policy asks for (TIP's `TIPImageFetchProgressUpdateBehavior`).
public enum ImageFetchProgressUpdateBehavior: Int, Sendable {
    /// Render nothing now.
    case none = 0
    /// Render everything received, incomplete scans included.
    case updateWithAnyProgress = 1
    /// Render through the last complete scan.
    case updateWithFullFrameProgress = 2
}

/// TIP's five progressive loading policies as decision rules, kept apart from the policy
/// objects so the tables can be checked on their own.
enum ProgressiveLoadingRules {
    /// Everything a policy decides from.
    struct Input: Sendable {
        /// What the latest bytes achieved.
        var frameProgress: ImageFetchProgress
        /// Completed scans so far.
        var frameCount: Int
        /// Download progress (never reaches 1 while bytes still arrive).
        var progress: Float
        /// Scans rendered so far for this fetch.
        var renderCount: Int
    }

    /// Full frames only: the last one (progress 1) always, otherwise just the first render, and that one
    /// only when low-quality first scans are allowed or two scans are in.
    static func firstAndLastFrame(_ input: Input, shouldRenderLowQualityFrame: Bool = true)
        -> ImageFetchProgressUpdateBehavior
    {
        guard input.frameProgress == .fullFrame else { return .none }
        if input.progress >= 1 { return .updateWithFullFrameProgress }
        guard input.renderCount == 0 else { return .none }
        return shouldRenderLowQualityFrame || input.frameCount >= 2 ? .updateWithFullFrameProgress : .none
    }

    /// Every full frame once two scans are in; the first scan alone only when allowed or past 20%.
    static func fullFrame(_ input: Input, shouldRenderLowQualityFrame: Bool = true) -> ImageFetchProgressUpdateBehavior
    {
        guard input.frameProgress == .fullFrame else { return .none }
        if input.frameCount > 1 { return .updateWithFullFrameProgress }
        if input.frameCount == 1 && (shouldRenderLowQualityFrame || input.progress >= 0.2) {
            return .updateWithFullFrameProgress
        }
        return .none
    }

    /// Any progress past `minimumProgress`.
    static func greedy(_ input: Input, minimumProgress: Float = 0) -> ImageFetchProgressUpdateBehavior {
        guard input.frameProgress != .none else { return .none }
        return input.progress > minimumProgress ? .updateWithAnyProgress : .none
    }

    /// The first opportunity past `minimumProgress` (any progress), then the last full frame.
    static func firstAndLastOpportunity(_ input: Input, minimumProgress: Float = 0) -> ImageFetchProgressUpdateBehavior
    {
        guard input.frameProgress != .none else { return .none }
        if input.progress >= 1 { return .updateWithFullFrameProgress }
        return input.renderCount == 0 && input.progress > minimumProgress ? .updateWithAnyProgress : .none
    }

    /// Never.
    static func disabled(_ input: Input) -> ImageFetchProgressUpdateBehavior { .none }
}
