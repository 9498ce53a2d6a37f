import Foundation
import Testing

@testable import TIP

/// A fetch cancelled while it waits for a dependency ends at once, as any cancelled `Operation` does.
@Suite("Fetch: cancelling a fetch that waits for a dependency")
struct CancelWithPendingDependencyTests {
    @Test("the completion gets cancelled and the operation finishes though its dependency never runs")
    func cancelledWhileWaiting() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let gate = BlockOperation {}  // never added to a queue: it never finishes
        let outcome = Locked<(result: ImageFetchResult?, error: (any Error)?, calls: Int)>((nil, nil, 0))
        let operation = env.pipeline.operation(
            with: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("dep.jpg"))
        ) {
            result, error in
            outcome.withLock { $0 = (result, error, $0.calls + 1) }
        }
        operation.addDependency(gate)
        env.pipeline.fetchImage(with: operation)
        #expect(!operation.isReady && !operation.isFinished)
        operation.cancel()
        #expect(await eventually { operation.isFinished })
        let (result, error, calls) = outcome.withLock { $0 }
        #expect(result == nil && calls == 1)
        #expect((error as? ImageFetchError)?.code == .cancelled)
        #expect(operation.isCancelled && operation.state == .cancelled)
        #expect(env.provider.count == 0)
    }

    @Test("a fetch that is not cancelled still waits for its dependency, then runs")
    func waitsWhenNotCancelled() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let gate = BlockOperation {}
        let operation = env.pipeline.operation(
            with: GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("wait.jpg"))
        ) {
            _, _ in
        }
        operation.addDependency(gate)
        env.pipeline.fetchImage(with: operation)
        #expect(env.provider.count == 0 && !operation.isReady)
        OperationQueue().addOperation(gate)
        let download = try await env.provider.next()
        download.respond(status: 404, headers: [:])
        download.finish()
        #expect(await eventually { operation.isFinished })
    }
}
