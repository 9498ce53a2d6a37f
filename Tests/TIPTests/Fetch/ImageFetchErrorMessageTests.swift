import Foundation
import Testing

@testable import TIP

/// The words of the errors a script prints: durations rounded, no resume promised for a download that got nothing,
/// and a file cut short on the server told apart from a connection cut short.
@Suite("Fetch error messages")
struct ImageFetchErrorMessageTests {
    static let url = URL(string: "https://images.example/a.jpg")!

    @Test("a stalled download that got nothing: seconds rounded, no resume promised; one that got bytes: resumable")
    func timedOut() {
        let nothing = ImageFetchError.downloadTimedOut(
            url: Self.url, received: 0, interval: 30.000384599, minimumBytesPerSecond: 1, receivedInAll: 0)
        #expect(nothing.message.contains("received 0 bytes in 30 s,"))
        #expect(nothing.message.contains("no byte of the image had arrived"))
        #expect(!nothing.message.contains("resumes"))
        let some = ImageFetchError.downloadTimedOut(
            url: Self.url, received: 10, interval: 2.5, minimumBytesPerSecond: 100, receivedInAll: 4_000)
        #expect(some.message.contains("received 10 bytes in 2.5 s,"))
        #expect(some.message.contains("a later fetch resumes it"))
        let unresumable = ImageFetchError.downloadTimedOut(
            url: Self.url, duration: 5, receivedInAll: 4_000, isResumable: false)
        #expect(unresumable.message.contains("cannot be resumed") && !unresumable.message.contains("resumes it"))
        let long = ImageFetchError.downloadTimedOut(url: Self.url, duration: 60.0004, receivedInAll: 0)
        #expect(long.message.contains("took longer than 60 s"))
        #expect(!long.message.contains("resumes"))
        #expect(ImageFetchError.seconds(0.1254) == "0.125")
        #expect(ImageFetchError.seconds(.infinity) == "inf")
    }

    @Test("a file cut short on the server, all its announced bytes there, is not blamed on Content-Length")
    func fileCutShort() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 64, height: 48)
        let (result, error) = try await env.fetch(
            GenericImageFetchRequest(imageURL: SteppedPipelineEnvironment.url("cut.jpg")),
            serving: jpeg.prefix(jpeg.count - 100))
        #expect(result == nil)
        let message = try #require(error as? ImageFetchError).message
        #expect(message.contains("every byte the server announced arrived, so the image file itself is cut short"))
        #expect(!message.contains("Content-Length may be wrong"))
    }
}
