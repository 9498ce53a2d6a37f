import Foundation
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Fetch: one request per distinct URL")
struct ImageFetchCommitCoalescingTests {
    @Test(
        "2,000 fetches of 50 URLs, 8 in flight, with ample budgets: exactly one download per URL",
        arguments: [UInt64(1), 2, 3])
    func oneDownloadPerURL(seed: UInt64) async throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let provider = CountingStubProvider()
        configuration.imageFetchDownloadProvider = provider
        let pipeline = try #require(ImagePipeline(identifier: "commit-\(seed)", configuration: configuration))
        let urls = (0..<50).map { URL(string: "http://images.test/commit/\($0).jpg")! }  // literal, valid URLs
        for (index, url) in urls.enumerated() {
            let data = try DownloaderTestEnvironment.jpeg(width: 160, height: 120, seed: UInt64(100 + index))
            provider.stubs.addDownloadStub(
                forRequestURL: url, responseData: data, responseMIMEType: "image/jpeg",
                shouldSupportResuming: true, suggestedBitrate: 1_000_000_000)
        }
        var generator = SplitMix64(seed: seed)
        let sizes = [CGSize(width: 40, height: 40), CGSize(width: 80, height: 60), CGSize(width: 100, height: 100)]
        let plan = (0..<2000).map { _ in
            (
                urls[Int.random(in: 0..<urls.count, using: &generator)],
                sizes[Int.random(in: 0..<sizes.count, using: &generator)]
            )
        }
        let next = Locked(0)
        let failures = Locked(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    while true {
                        let index = next.withLock { value in
                            defer { value += 1 }
                            return value
                        }
                        guard index < plan.count else { return }
                        let (url, size) = plan[index]
                        let request = GenericImageFetchRequest(
                            imageURL: url, identifier: nil, targetDimensions: size,
                            targetContentMode: .scaleAspectFit)
                        do { _ = try await pipeline.fetchImage(for: request) } catch { failures.withLock { $0 += 1 } }
                    }
                }
            }
        }
        #expect(failures.withLock { $0 } == 0)
        #expect(provider.count.withLock { $0 } == urls.count)
    }
}
