import Foundation
import TIPImageServer
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Downloader: network errors")
struct ImageDownloaderErrorTests {
    @Test(
        "failing HTTP statuses become HTTPTransactionError with the status; nothing is cached",
        arguments: [404, 500, 503])
    func failingStatus(status: Int) async throws {
        let env = try await DownloaderTestEnvironment()
        env.server.setFault(.status(status, body: Data("nope".utf8)), for: "/bad.jpg")
        let member = env.start(env.request("/bad.jpg"))
        let error = try #require(await member.failure() as? ImageFetchError)
        #expect(error.code == .httpTransactionError)
        #expect(error.httpStatusCode == status)
        #expect(error.errorUserInfo[ImageFetchError.httpStatusCodeKey] as? Int == status)
        try await Task.sleep(for: .milliseconds(50))
        #expect(env.diskEntry(env.server.url(for: "/bad.jpg").absoluteString) == nil)
        await env.tearDown()
    }

    @Test("a 206 to a request without a range is an HTTP error, never an image")
    func unexpectedPartialContent() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 300, height: 200)
        env.configuration.imageFetchDownloadProvider = ScriptedDownloadProvider([
            .start, .hydrate, .authorize,
            .response(status: 206, headers: ["Content-Range": "bytes 100-\(image.count - 1)/\(image.count)"]),
            .data(image.dropFirst(100)), .complete(nil),
        ])
        let error = try #require(await env.start(env.request("/partial.jpg")).failure() as? ImageFetchError)
        #expect(error.code == .httpTransactionError)
        #expect(error.httpStatusCode == 206)
        try await Task.sleep(for: .milliseconds(50))
        #expect(env.diskEntry(env.server.url(for: "/partial.jpg").absoluteString) == nil)
        await env.tearDown()
    }

    @Test("a 200 with an empty body is TIP's error 1006")
    func emptyBody() async throws {
        let env = try await DownloaderTestEnvironment()
        env.server.setFault(.status(200, body: Data()), for: "/empty.jpg")
        let error = try #require(await env.start(env.request("/empty.jpg")).failure() as? ImageFetchError)
        #expect(error.code == .downloadNeverReceivedResponse)
        #expect(error.errorCode == 1006)
        await env.tearDown()
    }

    @Test("a Content-Length larger than the body is an error that keeps the resumable partial, never a complete image")
    func contentLengthTooLarge() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 700, height: 500)
        env.server.setImage(image, at: "/long.jpg")
        env.server.setFault(.wrongContentLength(delta: 500), for: "/long.jpg")
        let member = env.start(env.request("/long.jpg"))
        #expect(await member.failure() != nil)
        let identifier = env.server.url(for: "/long.jpg").absoluteString
        #expect(await eventually { env.diskEntry(identifier)?.partial != nil })
        #expect(env.diskEntry(identifier)?.complete == nil)
        await env.tearDown()
    }

    @Test("a Content-Length smaller than the image cuts it short: an error, not a wrong complete image")
    func contentLengthTooSmall() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 700, height: 500)
        env.server.setImage(image, at: "/short.jpg")
        env.server.setFault(.wrongContentLength(delta: -700), for: "/short.jpg")
        let error = try #require(await env.start(env.request("/short.jpg")).failure() as? ImageFetchError)
        #expect(error.code == .couldNotDecodeImage)
        try await Task.sleep(for: .milliseconds(50))
        #expect(env.diskEntry(env.server.url(for: "/short.jpg").absoluteString)?.complete == nil)
        await env.tearDown()
    }

    @Test("a dropped connection fails the download with couldNotDownloadImage, the transport's error underneath")
    func droppedConnection() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 700, height: 500)
        env.server.setImage(image, at: "/drop.jpg")
        env.server.setFault(.dropConnection(afterBodyBytes: 100), for: "/drop.jpg")
        let error = await env.start(env.request("/drop.jpg", cached: false)).failure()
        let wrapped = try #require(error as? ImageFetchError)
        #expect(wrapped.code == .couldNotDownloadImage && wrapped.underlyingError != nil)
        #expect(!(wrapped.underlyingError is ImageFetchError))
        await env.tearDown()
    }

    @Test("a server that stops sending times out; the partial is kept and the next download resumes it")
    func timeoutKeepsPartial() async throws {
        let env = try await DownloaderTestEnvironment()
        env.configuration.imageFetchDownloadProvider = URLSessionImageFetchDownloadProvider(requestTimeout: 1)
        let image = try DownloaderTestEnvironment.jpeg(width: 900, height: 700)
        env.server.setImage(image, at: "/slow.jpg")
        env.server.setFault(.stall(afterBodyBytes: image.count / 2), for: "/slow.jpg")
        let error = await env.start(env.request("/slow.jpg")).failure()
        #expect(((error as? ImageFetchError)?.underlyingError as? URLError)?.code == .timedOut)
        let identifier = env.server.url(for: "/slow.jpg").absoluteString
        #expect(await eventually { env.diskEntry(identifier)?.partial != nil })
        #expect(env.diskEntry(identifier)?.partial?.byteCount == Int64(image.count / 2))
        env.server.setFault(nil, for: "/slow.jpg")
        let result = try #require(await env.start(env.request("/slow.jpg")).success())
        #expect(result.wasResumed && result.data == image)
        await env.tearDown()
    }

    @Test("an error after the last byte is forgiven (with a problem report)")
    func errorAfterLastByte() async throws {
        let env = try await DownloaderTestEnvironment()
        let recorder = RecordingProblemObserver()
        env.configuration.problemObserver = recorder
        let image = try DownloaderTestEnvironment.jpeg(width: 300, height: 200)
        env.configuration.imageFetchDownloadProvider = ScriptedDownloadProvider([
            .start, .hydrate, .authorize,
            .response(
                status: 200,
                headers: [
                    "Content-Length": "\(image.count)", "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT",
                    "Authorization": "Bearer echoed-by-a-bad-server",
                ]),
            .data(image.prefix(1000)), .data(image.dropFirst(1000)), .complete(URLError(.networkConnectionLost)),
        ])
        let result = try #require(await env.start(env.request("/late-error.jpg")).success())
        #expect(result.data == image)
        #expect(result.wasStoredOnDisk)
        #expect(recorder.all == [.imageDownloadedWithUnnecessaryError])
        // The problem carries the response (status and headers), never an Authorization value.
        let info = try #require(recorder.infos(.imageDownloadedWithUnnecessaryError).first)
        #expect(info[ProblemInfoKey.httpStatusCode] as? Int == 200)
        let headers = try #require(info[ProblemInfoKey.httpResponseHeaders] as? [String: String])
        #expect(headers["Content-Length"] == "\(image.count)")
        #expect(headers["Last-Modified"] == "Mon, 01 Jan 2024 00:00:00 GMT")
        #expect(!headers.keys.contains { $0.lowercased() == "authorization" })
        #expect(!"\(info)".contains("echoed-by-a-bad-server"))
        await env.tearDown()
    }

    @Test("bodies over maxImageDownloadByteCount stop early with downloadTooLarge")
    func tooLarge() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 700, height: 500)
        env.server.setImage(image, at: "/big.jpg")
        env.configuration.maxImageDownloadByteCount = 10_000
        let error = try #require(await env.start(env.request("/big.jpg")).failure() as? ImageFetchError)
        #expect(error.code == .downloadTooLarge)
        // Without a Content-Length the limit applies to the bytes as they arrive.
        env.configuration.imageFetchDownloadProvider = ScriptedDownloadProvider([
            .start, .hydrate, .authorize, .response(status: 200, headers: [:]),
            .data(image.prefix(8000)), .data(image.dropFirst(8000).prefix(8000)), .complete(nil),
        ])
        let streamed = try #require(await env.start(env.request("/streamed.jpg")).failure() as? ImageFetchError)
        #expect(streamed.code == .downloadTooLarge)
        await env.tearDown()
    }

    @Test("redirects are followed to http only")
    func redirects() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 300, height: 200)
        env.server.setImage(image, at: "/target.jpg")
        env.server.setFault(
            .redirect(status: 302, location: env.server.url(for: "/target.jpg").absoluteString), for: "/moved.jpg")
        env.server.setFault(.redirect(status: 302, location: "file:///etc/passwd"), for: "/evil.jpg")
        #expect(await env.start(env.request("/moved.jpg")).success()?.data == image)
        let error = await env.start(env.request("/evil.jpg")).failure()
        #expect(error != nil)
        // A redirect loop fails as too many redirects, not as a redirect that could not be followed.
        env.server.setFault(
            .redirect(status: 302, location: env.server.url(for: "/loop.jpg").absoluteString), for: "/loop.jpg")
        let loop = String(describing: try #require(await env.start(env.request("/loop.jpg")).failure()))
        #expect(loop.contains("redirects") && !loop.contains("cannot be followed"), "\(loop)")
        await env.tearDown()
    }

    @Test("provider contract violations end the download with codes 1001-1009")
    func contractViolations() async throws {
        let env = try await DownloaderTestEnvironment()
        let image = try DownloaderTestEnvironment.jpeg(width: 100, height: 100)
        let cases: [([ScriptedDownloadProvider.Step], ImageFetchError.Code)] = [
            ([.start, .start], .downloadEncounteredToStartMoreThanOnce),
            ([.hydrate], .downloadNeverStarted),
            ([.start, .authorize], .downloadNeverAttemptedToHydrateRequest),
            ([.start, .hydrate, .response(status: 200, headers: [:])], .downloadNeverAttemptedToAuthorizeRequest),
            ([.start, .hydrate, .authorize, .data(image)], .downloadNeverReceivedResponse),
            (
                [
                    .start, .hydrate, .authorize, .response(status: 200, headers: [:]),
                    .response(status: 200, headers: [:]),
                ],
                .downloadReceivedResponseMoreThanOnce
            ),
        ]
        for (index, (steps, code)) in cases.enumerated() {
            env.configuration.imageFetchDownloadProvider = ScriptedDownloadProvider(steps)
            let error = await env.start(env.request("/contract\(index).jpg")).failure(timeout: .seconds(5))
            #expect((error as? ImageFetchError)?.code == code, "steps \(index)")
        }
        env.configuration.imageFetchDownloadProvider = ScriptedDownloadProvider([.start], returnsForeignContext: true)
        let foreign = await env.start(env.request("/foreign.jpg")).failure(timeout: .seconds(5))
        #expect((foreign as? ImageFetchError)?.code == .couldNotDownloadImage)
        await env.tearDown()
    }

    @Test("Content-Range and header parsing")
    func headerParsing() {
        #expect(ResponseHeaders.parseContentRange("bytes 100-199/200")! == (100, 199, 200))
        #expect(ResponseHeaders.parseContentRange("bytes 0-9/*")!.total == nil)
        #expect(ResponseHeaders.parseContentRange("bytes 10-5/20") == nil)
        #expect(ResponseHeaders.parseContentRange("bytes 0-9/9") == nil)
        #expect(ResponseHeaders.parseContentRange("items 0-9/10") == nil)
        #expect(ResponseHeaders.parseContentRange("bytes */100") == nil)
        let url = URL(string: "http://127.0.0.1/x")!
        let response = HTTPURLResponse(
            url: url, statusCode: 200, httpVersion: "HTTP/1.1",
            headerFields: [
                "Content-Length": "42", "ETag": "W/\"weak\"", "Accept-Ranges": "none",
                "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT",
            ])!
        let headers = ResponseHeaders(response)
        #expect(headers.contentLength == 42)
        #expect(headers.entityTag == nil)  // weak tags cannot validate a range
        #expect(!headers.acceptsByteRanges)
        #expect(headers.lastModified == "Mon, 01 Jan 2024 00:00:00 GMT")
    }

    @Test("structural completeness of JPEG, PNG, GIF and WebP bodies, trailing bytes allowed")
    func completeness() throws {
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 64, height: 64)
        #expect(ImageDownloadHeaderReader.looksComplete(jpeg, type: .jpeg))
        #expect(!ImageDownloadHeaderReader.looksComplete(jpeg.prefix(jpeg.count - 10), type: .jpeg))
        #expect(ImageDownloadHeaderReader.looksComplete(Data("GIF89a;".utf8), type: .gif))
        #expect(!ImageDownloadHeaderReader.looksComplete(Data("GIF89a".utf8) + Data([0x00]), type: .gif))
        // Bytes after the end are allowed: a motion photo's video after a JPEG, padding, a newline.
        #expect(ImageDownloadHeaderReader.looksComplete(jpeg + Data(repeating: 0x5A, count: 8192), type: .jpeg))
        #expect(ImageDownloadHeaderReader.looksComplete(Data("GIF89a;\n".utf8), type: .gif))
        var webp = Data("RIFF".utf8) + Data([20, 0, 0, 0]) + Data("WEBPVP8 ".utf8)
        #expect(!ImageDownloadHeaderReader.looksComplete(webp, type: .webp))
        webp += Data(count: 12)
        #expect(ImageDownloadHeaderReader.looksComplete(webp, type: .webp))
        #expect(!ImageDownloadHeaderReader.looksComplete(Data(), type: nil))
    }
}
