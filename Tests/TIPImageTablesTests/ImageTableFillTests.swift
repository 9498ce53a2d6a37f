import Foundation
import TIPImageServer
import Testing

@testable import TIP
@testable import TIPImageTables

/// Fills through a real pipeline from the embedded server.
@Suite("Image table fills")
struct ImageTableFillTests {
    /// A 200x100 PNG, red on the left half and blue on the right.
    static func halves() throws -> Data {
        var bitmap = Bitmap(width: 200, height: 100, format: .rgbx8)!
        for y in 0..<100 {
            for x in 0..<200 { bitmap.setPixel(x: x, y: y, x < 100 ? SIMD4(255, 0, 0, 255) : SIMD4(0, 0, 255, 255)) }
        }
        return try CodecCatalogue.shared.encodeImage(ImageContainer(image: bitmap), type: .png, quality: 1)
    }

    static func server(_ paths: [String]) async throws -> TIPImageServer {
        let server = TIPImageServer()
        try await server.start()
        let data = try halves()
        for path in paths { server.setImage(data, at: path) }
        return server
    }

    @Test("a miss is fetched through the pipeline, drawn (aspect fill, centre crop) and stored; then it is a hit")
    func fillThenHit() async throws {
        let env = TableTestEnvironment()
        let server = try await Self.server(["/halves.png"])
        defer { server.stop() }
        let format = try TableTestImages.format(width: 50, height: 50, pixelFormat: .rgbx8)
        let store = try env.store([format], pipeline: try env.pipeline())
        let entity = GenericImageTableEntity(identifier: "user-1", sourceURL: server.url(for: "/halves.png"))
        #expect(store.image(for: entity, formatName: format.name) == nil)
        let image = try await store.retrieveImage(for: entity, formatName: format.name)
        #expect(image.width == 50 && image.height == 50 && image.isBorrowingMemory)
        // The 100x50 source is cropped to its middle 50 columns: red left, blue right.
        #expect(image.pixel(x: 5, y: 25) == SIMD4(255, 0, 0, 255))
        #expect(image.pixel(x: 44, y: 25) == SIMD4(0, 0, 255, 255))
        let hit = try #require(store.image(for: entity, formatName: format.name))
        #expect(TableTestImages.address(hit) == TableTestImages.address(image))
        #expect(server.requestCount(for: "/halves.png") == 1)
    }

    @Test("concurrent requests for one entity join one fill: one fetch, one entry, one view")
    func joinedFills() async throws {
        let env = TableTestEnvironment()
        let server = try await Self.server(["/a.png"])
        defer { server.stop() }
        server.setThrottle(.init(latency: .milliseconds(100)), for: "/a.png")
        let format = try TableTestImages.format(width: 32, height: 32)
        let store = try env.store([format], pipeline: try env.pipeline())
        let entity = GenericImageTableEntity(identifier: "a", sourceURL: server.url(for: "/a.png"))
        let addresses = try await withThrowingTaskGroup(of: UInt.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    TableTestImages.address(try await store.retrieveImage(for: entity, formatName: format.name))
                }
            }
            return try await group.reduce(into: Set<UInt>()) { $0.insert($1) }
        }
        #expect(addresses.count == 1)
        #expect(server.requestCount(for: "/a.png") == 1)
        #expect(store.statistics(formatName: format.name)?.entryCount == 1)
    }

    @Test("entities sharing a source URL share its download through the pipeline")
    func sharedSource() async throws {
        let env = TableTestEnvironment()
        let server = try await Self.server(["/shared.png"])
        defer { server.stop() }
        server.setThrottle(.init(latency: .milliseconds(100)), for: "/shared.png")
        let format = try TableTestImages.format(width: 20, height: 20)
        let store = try env.store([format], pipeline: try env.pipeline())
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<10 {
                let entity = GenericImageTableEntity(identifier: "e\(index)", sourceURL: server.url(for: "/shared.png"))
                group.addTask { _ = try await store.retrieveImage(for: entity, formatName: format.name) }
            }
            try await group.waitForAll()
        }
        #expect(server.requestCount(for: "/shared.png") == 1)
        #expect(store.statistics(formatName: format.name)?.entryCount == 10)
    }

    @Test("the completion API answers a hit synchronously and a fill later on the callback queue")
    func completionAPI() async throws {
        let env = TableTestEnvironment()
        let server = try await Self.server(["/c.png"])
        defer { server.stop() }
        let format = try TableTestImages.format(width: 16, height: 16)
        let store = try env.store([format], pipeline: try env.pipeline())
        let entity = GenericImageTableEntity(identifier: "c", sourceURL: server.url(for: "/c.png"))
        let configuration = env.configuration
        let (completions, completed) = AsyncStream<(onCallbackQueue: Bool, image: Bitmap?)>.makeStream()
        let returned = store.retrieveImage(for: entity, formatName: format.name) { result in
            completed.yield((configuration.isOnCallbackQueue, try? result.get()))
        }
        #expect(returned == false)
        var iterator = completions.makeAsyncIterator()
        let (onCallbackQueue, filled) = try #require(await iterator.next())
        #expect(onCallbackQueue)
        #expect(filled?.width == 16)
        let ran = Locked(false)
        let hit = store.retrieveImage(for: entity, formatName: format.name) { result in
            ran.withLock { $0 = (try? result.get()) != nil }
        }
        #expect(hit && ran.withLock { $0 }, "a hit completes before the call returns")
    }

    @Test("failures are typed: HTTP errors, no pipeline, unknown formats")
    func failures() async throws {
        let env = TableTestEnvironment()
        let server = try await Self.server([])
        defer { server.stop() }
        let format = try TableTestImages.format()
        let store = try env.store([format], pipeline: try env.pipeline())
        let missing = GenericImageTableEntity(identifier: "m", sourceURL: server.url(for: "/missing.png"))
        await #expect {
            _ = try await store.retrieveImage(for: missing, formatName: format.name)
        } throws: { error in
            guard case ImageTableError.fetchFailed(let underlying) = error else { return false }
            return (underlying as? ImageFetchError)?.code == .httpTransactionError
        }
        #expect(store.image(for: missing, formatName: format.name) == nil)
        await #expect(throws: ImageTableError.self) {
            _ = try await store.retrieveImage(for: missing, formatName: "nope")
        }
        let offline = try TableTestEnvironment().store([format])
        await #expect {
            _ = try await offline.retrieveImage(for: missing, formatName: format.name)
        } throws: { error in
            if case ImageTableError.noPipeline = error { return true }
            return false
        }
    }

    @Test("cancelling the only waiter ends its wait at once and cancels the fetch")
    func cancellation() async throws {
        let env = TableTestEnvironment()
        let server = try await Self.server(["/slow.png"])
        defer { server.stop() }
        server.setFault(.stall(afterBodyBytes: 10), for: "/slow.png")  // never completes: only a cancel ends it
        env.configuration.minimumImageDownloadBytesPerSecond = 0  // (and no rate limit)
        // Nor an idle timeout: on a loaded machine the cancel below came more than the default 60 s after the
        // request, and the download had failed with a timeout by then.
        env.configuration.imageFetchDownloadProvider = CurlImageFetchDownloadProvider(requestTimeout: 3600)
        let format = try TableTestImages.format()
        let store = try env.store([format], pipeline: try env.pipeline())
        let entity = GenericImageTableEntity(identifier: "s", sourceURL: server.url(for: "/slow.png"))
        let task = Task { try await store.retrieveImage(for: entity, formatName: format.name) }
        #expect(await server.waitUntil(timeout: .seconds(60)) { $0.requestCount(for: "/slow.png") == 1 })
        task.cancel()
        await #expect {
            _ = try await task.value
        } throws: { error in
            if case ImageTableError.cancelled = error { return true }
            return false
        }
        #expect(
            await server.waitUntil(timeout: .seconds(60)) { $0.openConnectionCount == 0 }, "the download was cancelled")
        #expect(store.image(for: entity, formatName: format.name) == nil)
    }

    @Test("a fill draws every format of the family that wants the same source from one fetch")
    func familyFill() async throws {
        let env = TableTestEnvironment()
        let server = try await Self.server(["/f.png"])
        defer { server.stop() }
        let small = try TableTestImages.format("avatar-16", width: 16, height: 16, family: "avatars")
        let large = try TableTestImages.format("avatar-48", width: 48, height: 48, family: "avatars")
        let other = try TableTestImages.format("banner", width: 40, height: 10)
        let store = try env.store([small, large, other], pipeline: try env.pipeline())
        let entity = GenericImageTableEntity(identifier: "u", sourceURL: server.url(for: "/f.png"))
        _ = try await store.retrieveImage(for: entity, formatName: small.name)
        // The sibling's write was queued on its table's queue before the fill completed: wait for that queue.
        let siblingQueue = try #require(store.table(named: large.name)).fillQueue
        await withCheckedContinuation { continuation in siblingQueue.async { continuation.resume() } }
        let sibling = store.image(for: entity, formatName: large.name)
        #expect(sibling?.width == 48)
        #expect(sibling?.pixel(x: 2, y: 24) == SIMD4(255, 0, 0, 255))
        #expect(store.image(for: entity, formatName: other.name) == nil, "other families are not filled")
        #expect(server.requestCount(for: "/f.png") == 1)
    }
}
