import Foundation
import TIPImageServer
import Testing

@testable import TIP

/// Found by LeakSanitizer on the stress executable: every download attempt stays alive after its fetch.
@Suite("Hardening: download attempts are released")
struct DownloadAttemptLeakTests {
    @Test("after fetches end (success, failure, cancellation) no download context stays alive")
    func attemptsAreReleased() async throws {
        let env = try await HardeningEnvironment()
        let provider = ContextWatchingProvider()
        env.configuration.imageFetchDownloadProvider = provider
        let image = try HardeningEnvironment.jpeg(width: 300, height: 200, seed: 3)
        env.server.setImage(image, at: "/ok.jpg")
        env.server.setFault(.status(404, body: nil), for: "/missing.jpg")
        #expect(await env.fetch(env.request("/ok.jpg")).result != nil)
        #expect(await env.fetch(env.request("/missing.jpg")).error != nil)
        #expect(provider.contexts.withLock { $0.count } == 2)
        try await Task.sleep(for: .milliseconds(300))
        let alive = provider.contexts.withLock { $0.filter { $0.value != nil }.count }
        #expect(alive == 0, "\(alive) download attempts are still alive")
        await env.tearDown()
    }
}
