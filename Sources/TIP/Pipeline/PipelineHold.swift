import Synchronization

/// An operation's strong reference to its pipeline, released by hand when the operation goes away, before
/// ``whenReleased(_:)``'s closure runs. The `async` API resumes its caller from that closure, so that the pipeline a
/// caller drops right after `try await` is really gone: a new pipeline with the same identifier can stand up at once
/// (with a plain stored reference it stayed live for a few microseconds more, and made the new one fail with
/// ``ImagePipelineIdentifierError/alreadyInUse(_:)``).
final class PipelineHold: Sendable {
    // Unmanaged: a stored reference is released only after `deinit`'s body, too late to tell anyone.
    private let reference: Unmanaged<ImagePipeline>
    private let onRelease = Mutex<(@Sendable () -> Void)?>(nil)  // inline: no allocation of its own

    /// Holds `pipeline` until this hold goes away.
    init(_ pipeline: ImagePipeline) {
        reference = .passRetained(pipeline)
    }

    /// The pipeline held.
    var pipeline: ImagePipeline { reference.takeUnretainedValue() }

    /// Runs `body` once the pipeline is released (from the thread that releases the last reference to this hold).
    func whenReleased(_ body: @escaping @Sendable () -> Void) {
        onRelease.withLock { $0 = body }
    }

    deinit {
        reference.release()
        onRelease.withLock { $0 }?()
    }
}
