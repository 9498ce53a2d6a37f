/// The live pipelines of one ``GlobalConfiguration``, by identifier (held weakly). Drives every
/// global fan-out (clearing, dirtying, inspection) and guarantees one live pipeline per identifier.
///
/// An identifier is claimed before the pipeline creates its caches, so a second pipeline with the
/// same identifier never opens a disk cache on a directory that a live pipeline is writing to.
final class ImagePipelineRegistry: Sendable {
    private struct Slot {
        weak var pipeline: ImagePipeline?
        /// Claimed by a pipeline that is still being created.
        var isReserved: Bool
    }

    private let slots = Locked<[String: Slot]>([:])

    /// Reserves `identifier`; false when a live pipeline has it or another one is being created with it.
    func claim(_ identifier: String) -> Bool {
        slots.withLock { slots in
            if let slot = slots[identifier], slot.isReserved || slot.pipeline != nil { return false }
            slots[identifier] = Slot(pipeline: nil, isReserved: true)
            return true
        }
    }

    /// Completes a claim: `pipeline` now owns its identifier.
    func register(_ pipeline: ImagePipeline) {
        slots.withLock { $0[pipeline.identifier] = Slot(pipeline: pipeline, isReserved: false) }
    }

    /// Releases `identifier` (from the pipeline's deinit, when its weak reference is already nil);
    /// a newer claim on the same identifier is left alone.
    func unregister(identifier: String) {
        slots.withLock { slots in
            if let slot = slots[identifier], !slot.isReserved, slot.pipeline == nil {
                slots[identifier] = nil
            }
        }
    }

    /// Whether a live pipeline has `identifier`.
    func isRegistered(_ identifier: String) -> Bool {
        slots.withLock { $0[identifier]?.pipeline != nil }
    }

    /// The live pipelines, sorted by identifier.
    var all: [ImagePipeline] {
        slots.withLock { $0.values.compactMap(\.pipeline) }.sorted { $0.identifier < $1.identifier }
    }

    /// The live pipeline with `identifier`.
    func pipeline(withIdentifier identifier: String) -> ImagePipeline? {
        slots.withLock { $0[identifier]?.pipeline }
    }
}
