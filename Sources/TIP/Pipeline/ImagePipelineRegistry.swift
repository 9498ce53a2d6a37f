
/// The live pipelines of one ``GlobalConfiguration``, by identifier (held weakly). Drives every
/// global fan-out (clearing, dirtying, inspection) and guarantees one live pipeline per identifier.
final class ImagePipelineRegistry: Sendable {
    private struct WeakPipeline {
        weak var pipeline: ImagePipeline?
    }

    private let pipelines = Locked<[String: WeakPipeline]>([:])

    /// Claims `identifier` for `pipeline`; false when a live pipeline already has it.
    func register(_ pipeline: ImagePipeline) -> Bool {
        pipelines.withLock { pipelines in
            if pipelines[pipeline.identifier]?.pipeline != nil { return false }
            pipelines[pipeline.identifier] = WeakPipeline(pipeline: pipeline)
            return true
        }
    }

    /// Releases `identifier` (called from the pipeline's deinit, when the weak reference is already nil).
    func unregister(identifier: String) {
        pipelines.withLock { pipelines in
            if pipelines[identifier]?.pipeline == nil {
                pipelines[identifier] = nil
            }
        }
    }

    /// Whether a live pipeline has `identifier`.
    func isRegistered(_ identifier: String) -> Bool {
        pipelines.withLock { $0[identifier]?.pipeline != nil }
    }

    /// The live pipelines, sorted by identifier.
    var all: [ImagePipeline] {
        pipelines.withLock { $0.values.compactMap(\.pipeline) }.sorted { $0.identifier < $1.identifier }
    }

    /// The live pipeline with `identifier`.
    func pipeline(withIdentifier identifier: String) -> ImagePipeline? {
        pipelines.withLock { $0[identifier]?.pipeline }
    }
}
