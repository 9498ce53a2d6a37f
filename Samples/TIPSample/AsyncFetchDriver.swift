import Foundation
import TIP

/// Fetches through `fetchImage(for:) async throws`, one task per fetch; results hop to the callback queue.
struct AsyncFetchDriver: FetchDriver {
    let callbackQueue: DispatchQueue

    func start(_ job: FetchJob, in pipeline: ImagePipeline, events: FetchEvents) -> any FetchHandle {
        let request = job.request
        let queue = callbackQueue
        let task = Task {
            let outcome: FetchOutcome
            do {
                outcome = .succeeded(try await pipeline.fetchImage(for: request))
            } catch {
                outcome = FetchOutcome(error: error)
            }
            queue.async { events.finished(outcome) }
        }
        return TaskHandle(task: task)
    }
}

/// A fetch task as a handle: cancelling the task cancels the fetch; the async API has no priorities.
final class TaskHandle: FetchHandle {
    let task: Task<Void, Never>

    init(task: Task<Void, Never>) {
        self.task = task
    }

    func cancel() { task.cancel() }

    func changePriority(_ priority: ImageFetchPriority) {}
}
