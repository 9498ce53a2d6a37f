import Dispatch
import Foundation
import Testing

@testable import TIP

@Suite("Data fetches share a few lanes")
struct DataFetchLanesTests {
    @Test("each data fetch's queue runs on one of the shared lanes, and a burst of fetches spreads over them")
    func queuesTargetTheLanes() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let finished = Locked(0)
        var fetches: [ImageDataFetch] = []
        for index in 0..<(2 * WorkLanes.lanes.count) {
            var request = GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("lane-\(index).jpg"))
            request.loadingSources = .cachesOnly  // misses at once: no download to serve
            fetches.append(env.pipeline.fetchImageData(with: request) { _ in finished.withLock { $0 += 1 } })
        }
        // What runs on a fetch's queue runs on a lane (a lane's specific is seen through the queues targeting it).
        let lanes = fetches.map { fetch in fetch.queue.sync { DispatchQueue.getSpecific(key: WorkLanes.key) } }
        #expect(lanes.allSatisfy { $0 != nil })
        // Handed out in turn (other tests take turns too, so only "more than one" is certain).
        #expect(Set(lanes.compactMap { $0 }).count > 1)
        let count = fetches.count
        #expect(await eventually { finished.withLock { $0 } == count })
        #expect(env.provider.count == 0)
    }
}
