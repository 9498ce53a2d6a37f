import Foundation
import TIPImageServer
import Testing

@testable import TIP

@Suite("Stubbing download provider")
struct StubbingDownloadProviderTests {
    @Test("setting a stubbing provider enables stubbing and clears its stubs; replacing it disables and clears")
    func configurationSwitchesStubbing() throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let stubs = StubbingImageFetchDownloadProvider()
        let url = URL(string: "http://stub.invalid/a.jpg")!
        stubs.addDownloadStub(
            forRequestURL: url, responseData: Data([1]), responseMIMEType: nil, shouldSupportResuming: false,
            suggestedBitrate: 0)
        #expect(!stubs.downloadStubbingEnabled)
        configuration.imageFetchDownloadProvider = stubs
        #expect(stubs.downloadStubbingEnabled)
        #expect(configuration.imageFetchDownloadProvider === stubs)
        configuration.imageFetchDownloadProvider = nil
        #expect(!stubs.downloadStubbingEnabled)
        #expect(configuration.imageFetchDownloadProvider is CurlImageFetchDownloadProvider, "the default on Linux")
    }

    @Test("stubbed downloads: 200 with the bytes, 404 for unknown URLs and empty stubs, no network")
    func stubbedResponses() async throws {
        let env = try await DownloaderTestEnvironment()
        let stubs = StubbingImageFetchDownloadProvider()
        env.configuration.imageFetchDownloadProvider = stubs
        let image = try DownloaderTestEnvironment.jpeg(width: 500, height: 400)
        let url = env.server.url(for: "/stubbed.jpg")
        stubs.addDownloadStub(
            forRequestURL: url, responseData: image, responseMIMEType: "image/jpeg", shouldSupportResuming: false,
            suggestedBitrate: 0)
        stubs.addDownloadStub(
            forRequestURL: env.server.url(for: "/empty.jpg"), responseData: nil, responseMIMEType: nil,
            shouldSupportResuming: false, suggestedBitrate: 0)
        let result = try #require(await env.start(env.request("/stubbed.jpg")).success())
        #expect(result.data == image)
        #expect(result.response?.value(forHTTPHeaderField: "Content-Type") == "image/jpeg")
        for path in ["/empty.jpg", "/unknown.jpg"] {
            let error = try #require(await env.start(env.request(path)).failure() as? ImageFetchError)
            #expect(error.httpStatusCode == 404)
        }
        #expect(env.server.allRequests.isEmpty)
        stubs.removeDownloadStub(forRequestURL: url)
        #expect((await env.start(env.request("/stubbed.jpg")).failure() as? ImageFetchError)?.httpStatusCode == 404)

        // Disabled: the fallback provider goes to the network.
        env.server.setImage(image, at: "/stubbed.jpg")
        stubs.downloadStubbingEnabled = false
        #expect(await env.start(env.request("/stubbed.jpg")).success()?.data == image)
        #expect(env.server.requestCount(for: "/stubbed.jpg") == 1)
        await env.tearDown()
    }

    @Test("a resumable stub answers the downloader's Range request with 206; the bitrate paces the body")
    func resumableAndPaced() async throws {
        let env = try await DownloaderTestEnvironment()
        let stubs = StubbingImageFetchDownloadProvider()
        env.configuration.imageFetchDownloadProvider = stubs
        let image = try DownloaderTestEnvironment.jpeg(width: 900, height: 700)
        let url = env.server.url(for: "/resumable.jpg")
        stubs.addDownloadStub(
            forRequestURL: url, responseData: image, responseMIMEType: "image/jpeg",
            shouldSupportResuming: true, suggestedBitrate: 8 * UInt64(image.count) * 4)  // ~0.25 s
        let prefix = image.prefix(image.count / 2)
        let partial = MemoryCachePartialImage(
            data: Data(prefix), url: url, dimensions: CGSize(width: 900, height: 700), expectedLength: image.count,
            lastModified: StubbingImageFetchDownloadProvider.stubLastModified, imageType: .jpeg)
        #expect(
            env.pipeline.memoryCache.updateEntry(MemoryCacheEntry(identifier: url.absoluteString, partial: partial)))
        let clock = ContinuousClock()
        let start = clock.now
        let result = try #require(await env.start(env.request("/resumable.jpg")).success())
        let elapsed = clock.now - start
        #expect(result.wasResumed)
        #expect(result.data == image)
        #expect(result.response?.statusCode == 206)
        // Half the body at a quarter-second-per-body bitrate: at least ~0.1 s.
        #expect(elapsed >= .milliseconds(100))
        await env.tearDown()
    }

    @Test("Range header parsing")
    func rangeParsing() {
        #expect(StubbedImageFetchDownload.firstByte(ofRange: "bytes=100-") == 100)
        #expect(StubbedImageFetchDownload.firstByte(ofRange: "bytes=0-10") == nil)
        #expect(StubbedImageFetchDownload.firstByte(ofRange: "items=1-") == nil)
    }
}
