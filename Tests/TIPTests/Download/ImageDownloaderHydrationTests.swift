import Foundation
import TIPImageServer
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

private struct HydrationFailure: Error, Equatable {}

@Suite("Downloader: hydration and authorization")
struct ImageDownloaderHydrationTests {
    @Test("hydration adds headers, then authorization sets Authorization; the first member is the context")
    func hydrationThenAuthorization() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 300, height: 200)
        env.server.setImage(image, at: "/h.jpg")
        let seen = Locked<[String]>([])
        let hydrator = ImageRequestHydrator { request, context, done in
            seen.withLock { $0.append("hydrate:\(request.value(forHTTPHeaderField: "Authorization") ?? "-")") }
            #expect(context is DownloadTestMember)
            var request = request
            request.setValue("sample", forHTTPHeaderField: "X-Client")
            let hydrated = request
            DispatchQueue.global().async { done(hydrated, nil) }  // completions may come from any thread
        }
        let authorizer = ImageRequestAuthorizer { request, _, done in
            seen.withLock { $0.append("authorize:\(request.value(forHTTPHeaderField: "X-Client") ?? "-")") }
            done("Bearer secret-token-123", nil)
        }
        var request = env.request("/h.jpg")
        request.hydrator = hydrator
        request.authorizer = authorizer
        #expect(await env.start(request).success()?.data == image)
        #expect(seen.withLock { $0 } == ["hydrate:-", "authorize:sample"])
        let record = try #require(env.server.requests(for: "/h.jpg").first)
        #expect(record.header("X-Client") == "sample")
        #expect(record.header("Authorization") == "Bearer secret-token-123")
        await env.tearDown()
    }

    @Test("Range and If-Range are added after hydration, which never sees them")
    func rangeAfterHydration() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 900, height: 700)
        env.server.setImage(image, at: "/r.jpg")
        let sawRange = Locked(false)
        let hydrator = ImageRequestHydrator { request, _, done in
            if request.value(forHTTPHeaderField: "Range") != nil { sawRange.withLock { $0 = true } }
            done(nil, nil)
        }
        var request = env.request("/r.jpg")
        request.hydrator = hydrator
        env.server.setFault(.dropConnection(afterBodyBytes: image.count / 2), for: "/r.jpg")
        #expect(await env.start(request).failure() != nil)
        env.server.setFault(nil, for: "/r.jpg")
        #expect(await eventually { env.diskEntry(env.server.url(for: "/r.jpg").absoluteString)?.partial != nil })
        env.server.resetLog()
        #expect(await env.start(request).success()?.wasResumed == true)
        #expect(!sawRange.withLock { $0 })
        #expect(env.server.requests(for: "/r.jpg").first?.header("Range") != nil)
        await env.tearDown()
    }

    @Test("a hydration block that changes the URL or the method fails with IllegalModificationByHydrationBlock")
    func illegalModifications() async throws {
        let env = try await DownloaderTestEnvironment()
        let otherURL = env.server.url(for: "/elsewhere.jpg")
        var moved = env.request("/m.jpg")
        moved.hydrator = ImageRequestHydrator { request, _, done in
            var request = request
            request.url = otherURL
            done(request, nil)
        }
        let urlError = try #require(await env.start(moved).failure() as? ImageFetchError)
        #expect(urlError.code == .illegalModificationByHydrationBlock)
        #expect(urlError.details[ImageFetchError.modifiedURLKey] == otherURL.absoluteString)

        var posted = env.request("/m.jpg")
        posted.hydrator = ImageRequestHydrator { request, _, done in
            var request = request
            request.httpMethod = "POST"
            done(request, nil)
        }
        let methodError = try #require(await env.start(posted).failure() as? ImageFetchError)
        #expect(methodError.code == .illegalModificationByHydrationBlock)
        #expect(methodError.details[ImageFetchError.modifiedHTTPMethodKey] == "POST")
        #expect(env.server.requestCount(for: "/m.jpg") == 0)
        #expect(env.server.requestCount(for: "/elsewhere.jpg") == 0)
        await env.tearDown()
    }

    @Test("errors from the hydration or authorization block fail the fetch with that error")
    func blockErrors() async throws {
        let env = try await DownloaderTestEnvironment()
        var hydrated = env.request("/e.jpg")
        hydrated.hydrator = ImageRequestHydrator { _, _, done in done(nil, HydrationFailure()) }
        #expect(await env.start(hydrated).failure() as? HydrationFailure == HydrationFailure())
        var authorized = env.request("/e.jpg")
        authorized.authorizer = ImageRequestAuthorizer { _, _, done in done(nil, HydrationFailure()) }
        #expect(await env.start(authorized).failure() as? HydrationFailure == HydrationFailure())
        #expect(env.server.requestCount(for: "/e.jpg") == 0)
        await env.tearDown()
    }

    @Test("the Authorization value never reaches the disk cache or the logs")
    func authorizationStaysSecret() async throws {
        let env = try await DownloaderTestEnvironment()
        let logger = CapturingLogger()
        env.configuration.logger = logger
        let secret = "Bearer very-secret-value-42"
        let image = try DownloaderTestEnvironment.jpeg(width: 900, height: 700)
        env.server.setImage(image, at: "/s.jpg")
        env.server.setImage(image, at: "/s2.jpg")
        env.server.setFault(.dropConnection(afterBodyBytes: image.count / 2), for: "/s2.jpg")
        let authorizer = ImageRequestAuthorizer { _, _, done in done(secret, nil) }
        for path in ["/s.jpg", "/s2.jpg"] {
            var request = env.request(path)
            request.authorizer = authorizer
            _ = await env.start(request).completion()
        }
        #expect(await eventually { env.diskEntry(env.server.url(for: "/s2.jpg").absoluteString)?.partial != nil })
        #expect(!logger.allMessages.isEmpty)
        #expect(!logger.allMessages.contains { $0.contains("very-secret") })
        // Every file in the pipeline's directory, with its extended attributes.
        let needle = Data("very-secret".utf8)
        let files = try FileManager.default.contentsOfDirectory(
            at: env.pipeline.directory, includingPropertiesForKeys: nil)
        #expect(!files.isEmpty)
        for file in files {
            #expect(try Data(contentsOf: file).range(of: needle) == nil)
            let attributes = ExtendedAttributes(path: file.path)
            for key in attributes.keys() {
                #expect(Data(attributes.bytes(key) ?? []).range(of: needle) == nil)
            }
        }
        await env.tearDown()
    }
}
