import Foundation
import TIPImageServer
import Testing

@testable import TIP
@testable import TIPStressHarness

/// The stress run of Tests/StressHarness in-process with 1,000 fetches across 4 pipelines (the executable
/// runs 10,000, under LeakSanitizer or valgrind): every fetch completes exactly once with a consistent state,
/// the budgets hold at every sample, cached images are exact, and everything is released afterwards.
@Suite("Hardening: concurrency stress")
struct PipelineStressTests {
    @Test(
        "1,000 fetches across 4 pipelines with cancellation, priorities, dependencies and stores",
        .timeLimit(.minutes(8)))
    func stress() async throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        var settings = StressSettings()
        settings.operations = 1_000
        settings.images = 32
        // The run blocks its thread for minutes: not one of the concurrency pool's, which the other tests need.
        let report = try await onOwnThread { [settings] in
            try StressRun(configuration: configuration, settings: settings) {
                ImagePipeline(identifier: $0, configuration: configuration)
            }.run()
        }
        print(report)
        #expect(report.problems.isEmpty, "\(report)")
        #expect(report.succeeded > 100 && report.cancelled > 0 && report.failed > 0)
        #expect(report.budgetSamples > 10)
        #expect(report.cachedImagesChecked > 0)
        #expect(report.knownIssues.count == 0, "\(report.knownIssues.prefix(3))")
    }

    @Test("memory and disk hits with target sizing report the original dimensions, like network loads")
    func originalDimensionsOfCacheHits() async throws {
        let env = try await HardeningEnvironment()
        env.server.setImage(try HardeningEnvironment.jpeg(width: 800, height: 600, seed: 5), at: "/o.jpg")
        var request = env.request("/o.jpg")
        request.targetDimensions = CGSize(width: 100, height: 100)
        request.targetContentMode = .scaleAspectFit
        let network = await env.fetch(request)
        #expect(network.result?.imageSource == .network)
        #expect(network.result?.imageOriginalDimensions == CGSize(width: 800, height: 600))
        env.pipeline.clearRenderedMemoryCacheImage(withIdentifier: env.identifier("/o.jpg"))
        let memory = await env.fetch(request)
        #expect(memory.result?.imageSource == .memoryCache)
        env.pipeline.clearMemoryCaches()
        let disk = await env.fetch(request)
        #expect(disk.result?.imageSource == .diskCache)
        #expect(memory.result?.imageOriginalDimensions == CGSize(width: 800, height: 600))
        #expect(disk.result?.imageOriginalDimensions == CGSize(width: 800, height: 600))
        await env.tearDown()
    }
}
