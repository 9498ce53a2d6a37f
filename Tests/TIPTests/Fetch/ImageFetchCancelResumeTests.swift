import Foundation
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Fetch: a cancelled fetch leaves its partial before its last callback")
struct ImageFetchCancelResumeTests {
    @Test("a fetch started from a cancelled fetch's failure callback resumes with Range and If-Range (100 rounds)")
    func resumeFromTheCancelledCallback() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 320, height: 240, seed: 3)
        let cut = jpeg.count / 2
        var failedRounds: [Int] = []
        for round in 0..<100 {
            let url = SteppedPipelineEnvironment.url("cancel-\(round).jpg")
            let tag = "\"v\(round)\""
            let request = GenericImageFetchRequest(imageURL: url)
            let pipeline = env.pipeline
            let second = Locked<ImageFetchOperation?>(nil)
            let firstError = Locked<(any Error)?>(nil)
            let first = pipeline.operation(with: request) { _, error in
                firstError.withLock { $0 = error }
                let again = pipeline.operation(with: request) { _, _ in }
                second.withLock { $0 = again }
                pipeline.fetchImage(with: again)
            }
            pipeline.fetchImage(with: first)
            let download = try await env.provider.next()
            download.respond(
                status: 200, headers: SteppedPipelineEnvironment.resumableHeaders(length: jpeg.count, entityTag: tag))
            download.send(jpeg.prefix(cut))
            // The header and the bytes reached the fetch: a resumable partial exists from now on.
            #expect(await eventually { first.networkImageOriginalDimensions != .zero && first.progress > 0.4 })
            first.cancel()

            let resumed = try await env.provider.next()
            let sent = try #require(resumed.sentRequest)
            let isRange =
                sent.value(forHTTPHeaderField: "Range") == "bytes=\(cut)-"
                && sent.value(forHTTPHeaderField: "If-Range") == tag
            if isRange {
                resumed.respond(
                    status: 206,
                    headers: SteppedPipelineEnvironment.rangeHeaders(from: cut, length: jpeg.count, entityTag: tag))
                resumed.send(jpeg.suffix(from: cut))
            } else {
                resumed.respond(
                    status: 200,
                    headers: SteppedPipelineEnvironment.resumableHeaders(length: jpeg.count, entityTag: tag))
                resumed.send(jpeg)
            }
            resumed.finish()
            #expect(await eventually { second.withLock { $0 }?.isFinished == true })
            #expect((firstError.withLock { $0 } as? ImageFetchError)?.code == .cancelled)
            let source = second.withLock { $0 }?.finalResult?.imageSource
            if !isRange || source != .networkResumed { failedRounds.append(round) }
        }
        #expect(
            failedRounds.isEmpty, "rounds that downloaded from byte 0 or did not report networkResumed: \(failedRounds)"
        )
    }
}
