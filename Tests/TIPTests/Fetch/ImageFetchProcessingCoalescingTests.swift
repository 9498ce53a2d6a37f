import Foundation
import Testing

@testable import TIP

@Suite("Fetch: one decode and one processing for concurrent fetches of one image")
struct ImageFetchProcessingCoalescingTests {
    private func request(_ counter: CountingProcessor) -> GenericImageFetchRequest {
        var request = GenericImageFetchRequest(
            imageURL: SteppedPipelineEnvironment.url("shared.jpg"), identifier: nil,
            targetDimensions: CGSize(width: 120, height: 120), targetContentMode: .scaleAspectFill)
        request.processors = [.cropToFill(), counter]
        return request
    }

    @Test("20 concurrent fetches with the same target and processors: 1 download, 1 decode, 1 process call")
    func twentyFetchesOneProcessing() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let counter = CountingProcessor()
        let request = request(counter)
        let results = Locked<[ImageFetchResult]>([])
        let jobsSeenByCallbacks = Locked<[Int]>([])
        let pipeline = env.pipeline
        let operations = (0..<20).map { _ in
            env.pipeline.operation(with: request) { result, _ in
                if let result { results.withLock { $0.append(result) } }
                jobsSeenByCallbacks.withLock { $0.append(pipeline.finalImages.inFlightCount) }
            }
        }
        for operation in operations { env.pipeline.fetchImage(with: operation) }
        try await env.provider.next().serve(DownloaderTestEnvironment.jpeg(width: 400, height: 300, seed: 21))
        #expect(await eventually { operations.allSatisfy(\.isFinished) })
        let delivered = results.withLock { $0 }
        #expect(delivered.count == 20)
        #expect(
            delivered.allSatisfy {
                $0.imageWasProcessed && $0.imageContainer.dimensions == CGSize(width: 120, height: 120)
            })
        // Every fetch got the one image made.
        #expect(Set(delivered.map { ObjectIdentifier($0.imageContainer) }).count == 1)
        #expect(counter.finalCalls == 1)
        #expect(env.provider.count == 1)
        #expect(env.pipeline.finalImages.inFlightCount == 0)
        // The job ended before any delegate heard of the image, the producer's included: a fetch started from a
        // callback (after clearing the caches, say) cannot join it.
        #expect(jobsSeenByCallbacks.withLock { $0 } == Array(repeating: 0, count: 20))
    }

    @Test("different processors or targets are made separately; a failed producer lets the others try themselves")
    func separateKeys() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let first = CountingProcessor(identifier: "test.first")
        let second = CountingProcessor(identifier: "test.second")
        var other = request(second)
        other.targetDimensions = CGSize(width: 60, height: 60)
        let operations = [request(first), request(first), other, other].map {
            env.pipeline.operation(with: $0) { _, _ in }
        }
        for operation in operations { env.pipeline.fetchImage(with: operation) }
        try await env.provider.next().serve(DownloaderTestEnvironment.jpeg(width: 400, height: 300, seed: 22))
        #expect(await eventually { operations.allSatisfy(\.isFinished) })
        #expect(first.finalCalls == 1 && second.finalCalls == 1)
        #expect(operations[2].finalResult?.imageContainer.dimensions == CGSize(width: 60, height: 60))

        // A processor that fails: each fetch fails on its own (nothing shared, nothing cached).
        let failing = CountingProcessor(identifier: "test.failing") { _ in true }
        var failingRequest = request(failing)
        failingRequest.imageURL = SteppedPipelineEnvironment.url("failing.jpg")
        let failures = (0..<3).map { _ in env.pipeline.operation(with: failingRequest) { _, _ in } }
        for operation in failures { env.pipeline.fetchImage(with: operation) }
        try await env.provider.next().serve(DownloaderTestEnvironment.jpeg(width: 200, height: 150, seed: 23))
        #expect(await eventually { failures.allSatisfy(\.isFinished) })
        #expect(failures.allSatisfy { ($0.error as? ImageFetchError)?.code == .couldNotProcessImage })
        #expect(env.pipeline.finalImages.inFlightCount == 0)
    }
}
