import Foundation
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Bodies the catalogue cannot read never become complete cache entries; entries that fail to decode when read
/// are removed and reported.
@Suite("Downloads: undecodable bodies are never cached")
struct UndecodableBodyTests {
    enum Body: String, CaseIterable, Sendable {
        case html, text, overPixelLimit, headerless

        func make() throws -> (data: Data, type: String) {
            switch self {
            case .html:
                let page =
                    "<!DOCTYPE html><html><head><title>Not here</title></head><body>"
                    + String(repeating: "<p>Nothing to see.</p>", count: 100) + "</body></html>"
                return (Data(page.utf8), "text/html")
            case .text:
                return (Data(String(repeating: "plain text, not an image\n", count: 60).utf8), "text/plain")
            case .overPixelLimit:
                // A real JPEG whose frame header claims 20000x20000 (400 megapixels).
                var jpeg = try DownloaderTestEnvironment.jpeg(width: 64, height: 48, seed: 5)
                let bytes = [UInt8](jpeg)
                guard
                    let sof = (2..<bytes.count - 9).first(where: {
                        bytes[$0] == 0xFF && (bytes[$0 + 1] == 0xC0 || bytes[$0 + 1] == 0xC2)
                    })
                else { throw POSIXError(.EINVAL) }
                let huge: [UInt8] = [0x4E, 0x20, 0x4E, 0x20]  // height, width: 20000
                jpeg.replaceSubrange((sof + 5)..<(sof + 9), with: huge)
                return (jpeg, "image/jpeg")
            case .headerless:
                // JPEG's magic number, then nothing a decoder can read.
                return (Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 0x5A, count: 3000), "image/jpeg")
            }
        }
    }

    @Test("a body the catalogue cannot read fails the fetch and caches nothing", arguments: Body.allCases)
    func notCached(body: Body) async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let (data, type) = try body.make()
        let url = SteppedPipelineEnvironment.url("\(body.rawValue).jpg")
        for attempt in 1...2 {
            let failure = Locked<(any Error)?>(nil)
            let operation = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: url)) { _, error in
                failure.withLock { $0 = error }
            }
            env.pipeline.fetchImage(with: operation)
            let download = try await env.provider.next()
            download.respond(
                status: 200,
                headers: [
                    "Content-Length": "\(data.count)", "Content-Type": type,
                    "ETag": "\"b\"", "Accept-Ranges": "bytes",
                ])
            download.send(data)
            download.finish()
            #expect(await eventually { operation.isFinished })
            #expect(operation.finalResult == nil)
            #expect(failure.withLock { $0 } != nil)
            // Nothing cached: the next fetch downloads again.
            #expect(env.pipeline.diskCache.entry(withIdentifier: url.absoluteString) == nil, "attempt \(attempt)")
            #expect(
                env.pipeline.memoryCache.entry(withIdentifier: url.absoluteString, touch: false) == nil,
                "attempt \(attempt)")
            #expect(env.provider.count == attempt)
        }
    }

    @Test("a complete disk entry whose bytes rot is removed, reported, and the fetch goes to the network")
    func undecodableDiskEntry() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 320, height: 240, seed: 6)
        let url = SteppedPipelineEnvironment.url("rotten.jpg")
        let identifier = url.absoluteString

        func fetch(target: CGSize) async throws -> ImageFetchOperation {
            let request = GenericImageFetchRequest(
                imageURL: url, identifier: nil, targetDimensions: target, targetContentMode: .scaleAspectFit)
            let operation = env.pipeline.operation(with: request) { _, _ in }
            env.pipeline.fetchImage(with: operation)
            return operation
        }
        let first = try await fetch(target: CGSize(width: 100, height: 100))
        try await env.provider.next().serve(jpeg, entityTag: "\"j\"")
        #expect(await eventually { first.isFinished })
        #expect(first.finalResult?.imageSource == .network)
        #expect(await eventually { env.pipeline.diskCache.entry(withIdentifier: identifier)?.complete != nil })
        let file = try #require(env.pipeline.diskCache.entry(withIdentifier: identifier)?.complete?.fileURL)

        // The file rots: same length, not an image any more.
        try Data(repeating: 0x3C, count: jpeg.count).write(to: file)
        env.pipeline.clearMemoryCaches()
        let second = try await fetch(target: CGSize(width: 120, height: 120))
        try await env.provider.next().serve(jpeg, entityTag: "\"j\"")
        #expect(await eventually { second.isFinished })
        #expect(second.finalResult?.imageSource == .network)
        // The recorded checksum catches the rot before the decoder would.
        #expect(env.problems.count(.diskCacheEntryDamaged) == 1)
        let info = try #require(env.problems.infos(.diskCacheEntryDamaged).first)
        #expect(info[ProblemInfoKey.imageIdentifier] as? String == identifier)
        // The fresh download replaced the rotten file with the real image.
        #expect(await eventually { (try? Data(contentsOf: file)) == jpeg })
    }
}
