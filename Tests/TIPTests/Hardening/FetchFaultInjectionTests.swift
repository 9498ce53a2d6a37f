import Foundation
import TIPImageServer
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One injected server fault and whether the fetch may still succeed.
struct FetchFaultCase: Sendable, CustomTestStringConvertible {
    var name: String
    var fault: TIPImageServer.Fault
    /// The fault only touches the transport around a complete body, so the exact image may arrive.
    var mayDeliver: Bool = false
    /// The HTTP status the error must carry, when the fault is a status.
    var status: Int?

    var testDescription: String { name }
}

/// End-to-end fault injection: every fetch goes through `ImagePipeline` (`operation(with:context:completion:)`)
/// against the embedded TIPImageServer. Each case ends with the exact original image or a typed error, and
/// the caches never hold a wrong complete image. The downloader-level versions of these cases are in
/// Download/ImageDownloaderErrorTests.swift and Download/ImageDownloaderResumeTests.swift.
@Suite("Hardening: fault injection through the pipeline")
struct FetchFaultInjectionTests {
    static let image: Data = (try? HardeningEnvironment.jpeg(width: 700, height: 500, seed: 7)) ?? Data()

    static let cases: [FetchFaultCase] = {
        let count = image.count
        var cases = [
            FetchFaultCase(name: "drop after the headers", fault: .dropConnection(afterBodyBytes: 0)),
            FetchFaultCase(name: "drop mid-body", fault: .dropConnection(afterBodyBytes: count / 2)),
            FetchFaultCase(name: "drop one byte before the end", fault: .dropConnection(afterBodyBytes: count - 1)),
            FetchFaultCase(name: "Content-Length larger than the body", fault: .wrongContentLength(delta: 500)),
            FetchFaultCase(name: "Content-Length smaller than the body", fault: .wrongContentLength(delta: -700)),
            FetchFaultCase(name: "redirect to file://", fault: .redirect(status: 302, location: "file:///etc/passwd")),
            FetchFaultCase(
                name: "redirect 301 to file://", fault: .redirect(status: 301, location: "file:///etc/hostname")),
        ]
        for status in [301, 302, 304, 403, 404, 416, 429, 500, 503] {
            cases.append(
                FetchFaultCase(
                    name: "status \(status)", fault: .status(status, body: Data("no image".utf8)), status: status))
        }
        return cases
    }()

    @Test(
        """
        each fault ends with the exact image or a typed error; the caches hold nothing wrong; a clean retry gets \
        the image
        """,
        arguments: cases, ShippedDownloadProvider.allCases)
    func fault(_ testCase: FetchFaultCase, _ kind: ShippedDownloadProvider) async throws {
        let env = try await HardeningEnvironment(provider: kind)
        let original = Self.image
        env.server.setImage(original, at: "/f.jpg")
        env.server.setFault(testCase.fault, for: "/f.jpg")
        let outcome = await env.fetch(env.request("/f.jpg"))
        Self.expectExactImageOrTypedError(outcome, original: original, mayDeliver: testCase.mayDeliver)
        if let status = testCase.status {
            // Every failing status is the origin's HTTP error, redirects without a Location included (never a
            // complaint about the download provider).
            let error = outcome.fetchError
            #expect(
                error?.code == .httpTransactionError && error?.httpStatusCode == status, "\(String(describing: error))")
            #expect(error.map { !"\($0)".contains("contract") } ?? true)
            if (300..<400).contains(status) && status != 304 {
                #expect(error.map { "\($0)".contains("Location") } ?? false)
            }
        }
        await env.expectCachesHoldNothingWrong("/f.jpg", original: original)

        // The fault gone, the next fetch (resuming any partial) gets exactly the image.
        env.server.setFault(nil, for: "/f.jpg")
        env.pipeline.clearMemoryCaches()
        let retry = await env.fetch(env.request("/f.jpg"))
        Self.expectExactImageOrTypedError(retry, original: original, mayDeliver: true)
        #expect(retry.result != nil, "the retry failed: \(String(describing: retry.error))")
        #expect(await env.expectCachesHoldNothingWrong("/f.jpg", original: original))
        await env.tearDown()
    }

    @Test(
        "a connection closed before any header: a typed error, nothing cached",
        arguments: ShippedDownloadProvider.allCases)
    func droppedBeforeHeaders(_ kind: ShippedDownloadProvider) async throws {
        let env = try await HardeningEnvironment(provider: kind)
        let silent = try SilentClosingServer()
        defer { silent.stop() }
        let request = GenericImageFetchRequest(imageURL: silent.url(for: "/x.jpg"))
        let outcome = await env.fetch(request)
        Self.expectExactImageOrTypedError(outcome, original: Self.image, mayDeliver: false)
        #expect(env.pipeline.diskCache.entry(withIdentifier: silent.url(for: "/x.jpg").absoluteString) == nil)
        #expect(
            env.pipeline.memoryCache.entry(withIdentifier: silent.url(for: "/x.jpg").absoluteString, touch: false)
                == nil)
        await env.tearDown()
    }

    @Test(
        "a body over maxImageDownloadByteCount: DownloadTooLarge, nothing cached; with room, the image",
        arguments: ShippedDownloadProvider.allCases)
    func tooLarge(_ kind: ShippedDownloadProvider) async throws {
        let env = try await HardeningEnvironment(provider: kind)
        let original = Self.image
        env.server.setImage(original, at: "/big.jpg")
        env.configuration.maxImageDownloadByteCount = Int64(original.count / 3)
        let outcome = await env.fetch(env.request("/big.jpg"))
        #expect(outcome.fetchError?.code == .downloadTooLarge, "\(String(describing: outcome.error))")
        #expect(await !env.expectCachesHoldNothingWrong("/big.jpg", original: original))
        env.configuration.maxImageDownloadByteCount = Int64(original.count)
        let retry = await env.fetch(env.request("/big.jpg"))
        Self.expectExactImageOrTypedError(retry, original: original, mayDeliver: true)
        #expect(retry.result != nil)
        await env.tearDown()
    }

    @Test(
        "a partial, then a server that ignores Range: the whole image, byte-exact, no mixed bytes",
        arguments: ShippedDownloadProvider.allCases)
    func rangeIgnored(_ kind: ShippedDownloadProvider) async throws {
        let env = try await HardeningEnvironment(provider: kind)
        let original = Self.image
        env.server.setImage(original, at: "/r.jpg")
        try await Self.leavePartial(env, "/r.jpg", bytes: original.count / 2)
        env.server.setFault(.ignoreRange, for: "/r.jpg")
        env.pipeline.clearMemoryCaches()
        let outcome = await env.fetch(env.request("/r.jpg"))
        Self.expectExactImageOrTypedError(outcome, original: original, mayDeliver: true)
        #expect(outcome.result?.imageSource == .network)
        #expect(
            env.server.requests(for: "/r.jpg").last?.header("Range") != nil,
            "the second request should have asked for a range")
        #expect(await env.expectCachesHoldNothingWrong("/r.jpg", original: original))
        await env.tearDown()
    }

    @Test(
        "a partial, then the image replaced (new validators): only the new image is ever delivered or cached",
        arguments: ShippedDownloadProvider.allCases)
    func validatorChanged(_ kind: ShippedDownloadProvider) async throws {
        let env = try await HardeningEnvironment(provider: kind)
        let old = Self.image
        let new = try HardeningEnvironment.jpeg(width: 700, height: 500, seed: 99)
        env.server.setImage(old, at: "/v.jpg")
        try await Self.leavePartial(env, "/v.jpg", bytes: old.count / 2)
        env.server.setImage(new, at: "/v.jpg", lastModified: Date(timeIntervalSince1970: 1_800_000_000))
        env.pipeline.clearMemoryCaches()
        let outcome = await env.fetch(env.request("/v.jpg"))
        Self.expectExactImageOrTypedError(outcome, original: new, mayDeliver: true)
        #expect(outcome.result != nil)
        #expect(await env.expectCachesHoldNothingWrong("/v.jpg", original: new))

        // The same validators changing on every request (identical bytes): still exact.
        env.server.setImage(old, at: "/v2.jpg")
        try await Self.leavePartial(env, "/v2.jpg", bytes: old.count / 3)
        env.server.setFault(.changeValidatorEveryRequest, for: "/v2.jpg")
        env.pipeline.clearMemoryCaches()
        let again = await env.fetch(env.request("/v2.jpg"))
        Self.expectExactImageOrTypedError(again, original: old, mayDeliver: true)
        #expect(again.result != nil)
        await env.expectCachesHoldNothingWrong("/v2.jpg", original: old)
        await env.tearDown()
    }

    @Test(
        "a server that stalls mid-body or never sends a header times out; the partial resumes to the exact image",
        arguments: ShippedDownloadProvider.allCases)
    func slowServerTimesOut(_ kind: ShippedDownloadProvider) async throws {
        let env = try await HardeningEnvironment(provider: kind, requestTimeout: 1)
        let original = Self.image
        env.server.setImage(original, at: "/slow.jpg")
        // A plain fetch first sets the pace (sanitizers and busy machines are slow).
        env.server.setImage(original, at: "/pace.jpg")
        let clock = ContinuousClock()
        let paceStart = clock.now
        #expect(await env.fetch(env.request("/pace.jpg")).result != nil)
        let pace = clock.now - paceStart
        env.server.setFault(.stall(afterBodyBytes: original.count / 2), for: "/slow.jpg")
        let start = clock.now
        let outcome = await env.fetch(env.request("/slow.jpg"))
        #expect(clock.now - start < .seconds(15) + pace * 5, "a plain fetch took \(pace)")
        Self.expectExactImageOrTypedError(outcome, original: original, mayDeliver: false)
        #expect(
            ((outcome.error as? ImageFetchError)?.underlyingError as? URLError)?.code == .timedOut,
            "\(String(describing: outcome.error))")
        await env.expectCachesHoldNothingWrong("/slow.jpg", original: original)
        env.server.setFault(nil, for: "/slow.jpg")
        let retry = await env.fetch(env.request("/slow.jpg"))
        #expect(retry.result?.imageSource == .networkResumed, "\(String(describing: retry.result?.imageSource))")
        Self.expectExactImageOrTypedError(retry, original: original, mayDeliver: true)

        env.server.setImage(original, at: "/silent.jpg")
        env.server.setFault(.withholdResponse, for: "/silent.jpg")  // never answers
        let silent = await env.fetch(env.request("/silent.jpg"))
        #expect(
            ((silent.error as? ImageFetchError)?.underlyingError as? URLError)?.code == .timedOut,
            "\(String(describing: silent.error))")
        #expect(await !env.expectCachesHoldNothingWrong("/silent.jpg", original: original))
        await env.tearDown()
    }

    @Test(
        "an http redirect is followed to the exact image; the original URL is what is cached",
        arguments: ShippedDownloadProvider.allCases)
    func httpRedirect(_ kind: ShippedDownloadProvider) async throws {
        let env = try await HardeningEnvironment(provider: kind)
        let original = Self.image
        env.server.setImage(original, at: "/target.jpg")
        for status in [301, 302, 307, 308] {
            env.server.setFault(
                .redirect(status: status, location: env.server.url(for: "/target.jpg").absoluteString),
                for: "/moved\(status).jpg")
            let outcome = await env.fetch(env.request("/moved\(status).jpg"))
            Self.expectExactImageOrTypedError(outcome, original: original, mayDeliver: true)
            #expect(outcome.result != nil, "redirect \(status): \(String(describing: outcome.error))")
            await env.expectCachesHoldNothingWrong("/moved\(status).jpg", original: original)
        }
        await env.tearDown()
    }

    // MARK: Helpers

    /// Fetches `path` with a drop after `bytes` body bytes, leaving a partial on disk.
    static func leavePartial(_ env: HardeningEnvironment, _ path: String, bytes: Int) async throws {
        env.server.setFault(.dropConnection(afterBodyBytes: bytes), for: path)
        let outcome = await env.fetch(env.request(path))
        #expect(outcome.result == nil)
        let identifier = env.identifier(path)
        #expect(
            await eventually(timeout: .seconds(5)) {
                env.pipeline.diskCache.entry(withIdentifier: identifier)?.partial != nil
            },
            "no partial was left for \(path)")
        env.server.setFault(nil, for: path)
    }

    /// Exactly one completion, with the exact image (pixels equal to decoding `original`) or a typed error.
    static func expectExactImageOrTypedError(
        _ outcome: HardeningOutcome, original: Data, mayDeliver: Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(outcome.completions == 1, "completions: \(outcome.completions)", sourceLocation: sourceLocation)
        if let result = outcome.result {
            #expect(
                mayDeliver, "an image arrived although the fault should have prevented it",
                sourceLocation: sourceLocation)
            guard let expected = try? CodecCatalogue.shared.decodeImage(original).container.image else {
                Issue.record("the original does not decode", sourceLocation: sourceLocation)
                return
            }
            let image = result.imageContainer.image
            #expect(!result.imageContainer.isPartial, sourceLocation: sourceLocation)
            #expect(image.width == expected.width && image.height == expected.height, sourceLocation: sourceLocation)
            if image.width == expected.width && image.height == expected.height {
                #expect(ImageComparison.maxDifference(image, expected) == 0, sourceLocation: sourceLocation)
            }
        } else {
            let error = outcome.error
            // One error type at the surface: transport errors arrive wrapped (their URLError underneath).
            #expect(
                error is ImageFetchError,
                "untyped error: \(String(describing: error)) (\(type(of: error)))", sourceLocation: sourceLocation)
        }
    }
}
