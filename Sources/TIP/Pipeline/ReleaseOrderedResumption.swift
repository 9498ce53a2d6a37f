import Dispatch

/// The continuation of one `async` call (a fetch, a data fetch, a store), resumed once both its outcome is known and
/// the operation has released its pipeline (``PipelineHold``): a caller that drops the pipeline right after
/// `try await` can make a new one with the same identifier at once. A task's cancellation resumes it at once
/// instead (``resumeNow(_:)``).
///
/// If something outside TIP keeps the operation alive (a transformer or processor that stores it), the release never
/// comes: the caller is then resumed a tenth of a second after the outcome, never left waiting.
final class ReleaseOrderedResumption<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var outcome: Result<Value, any Error>?
        var isReleased = false
        /// The safety net's token while the caller waits for the release (``ReleaseGrace``).
        var graceToken: UInt64?
    }

    private let state: Locked<State>

    /// Resumes `continuation` once; watches `hold` for the pipeline's release.
    init(_ continuation: CheckedContinuation<Value, any Error>, watching hold: PipelineHold) {
        state = Locked(State(continuation: continuation))
        hold.whenReleased { [self] in released() }
    }

    /// The call's outcome: the caller is resumed with it once the pipeline is released.
    func finish(_ outcome: Result<Value, any Error>) {
        let released = state.withLock { state -> Bool in
            if state.outcome == nil, state.continuation != nil { state.outcome = outcome }
            return state.isReleased
        }
        if released { return resume() }
        let token = ReleaseGrace.schedule { [self] in resume() }
        let releasedMeanwhile = state.withLock { state -> Bool in
            state.graceToken = token
            return state.isReleased
        }
        if releasedMeanwhile {
            ReleaseGrace.cancel(token)
            resume()
        }
    }

    /// Resumes the caller now, whether or not the pipeline was released (a task's cancellation): with the outcome
    /// already known, else with `outcome`.
    func resumeNow(_ outcome: Result<Value, any Error>) {
        state.withLock { state in
            if state.outcome == nil, state.continuation != nil { state.outcome = outcome }
        }
        resume()
    }

    private func released() {
        let (ready, token) = state.withLock { state -> (Bool, UInt64?) in
            state.isReleased = true
            defer { state.graceToken = nil }
            return (state.outcome != nil, state.graceToken)
        }
        if let token { ReleaseGrace.cancel(token) }
        if ready { resume() }
    }

    /// Resumes the caller with the outcome, the first time both are there.
    private func resume() {
        let taken = state.withLock { state -> (CheckedContinuation<Value, any Error>, Result<Value, any Error>)? in
            guard let continuation = state.continuation, let outcome = state.outcome else { return nil }
            state.continuation = nil
            state.outcome = nil
            return (continuation, outcome)
        }
        guard let (continuation, outcome) = taken else { return }
        continuation.resume(with: outcome)
    }
}
