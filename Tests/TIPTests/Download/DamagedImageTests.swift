import Foundation
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Complete downloads whose decoder cannot read every pixel (cut short and closed with an end marker, a bad
/// checksum) fail and are never cached as complete; bytes after an image's end marker are ignored, as browsers do.
@Suite("Downloads: damaged images are never complete")
struct DamagedImageTests {
    enum Damage: String, CaseIterable, Sendable {
        case pngCutWithIEND, pngBadCRC, gifCutWithTrailer, jpegCutWithEOI, progressiveJPEGCutWithEOI

        func make() throws -> Data {
            switch self {
            case .pngCutWithIEND:
                let png = try DamagedImageTests.png()
                return png.prefix(png.count / 2) + DamagedImageTests.iend
            case .pngBadCRC:
                // One flipped byte inside the image data: its chunk's CRC no longer matches.
                var png = try DamagedImageTests.png()
                let idat = try #require(png.range(of: Data("IDAT".utf8)))
                png[idat.upperBound + 200] ^= 0xFF
                return png
            case .gifCutWithTrailer:
                let gif = try DamagedImageTests.encoded(.gif)
                return gif.prefix(gif.count * 2 / 3) + Data([0x3B])
            case .jpegCutWithEOI, .progressiveJPEGCutWithEOI:
                let jpeg = try DownloaderTestEnvironment.jpeg(
                    width: 320, height: 240, progressive: self == .progressiveJPEGCutWithEOI, seed: 41)
                return jpeg.prefix(jpeg.count / 2) + Data([0xFF, 0xD9])
            }
        }
    }

    static let iend = Data([0, 0, 0, 0]) + Data("IEND".utf8) + Data([0xAE, 0x42, 0x60, 0x82])

    static func encoded(_ type: ImageType) throws -> Data {
        let image = ImageContainer(image: TestImages.photo(width: 160, height: 120, format: .rgbx8, seed: 42))
        return try CodecCatalogue.shared.encodeImage(image, type: type, quality: 1)
    }

    static func png() throws -> Data { try encoded(.png) }

    @Test(
        "a damaged complete body fails the fetch with couldNotDecodeImage and caches nothing complete",
        arguments: Damage.allCases)
    func damagedBody(damage: Damage) async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let data = try damage.make()
        let url = SteppedPipelineEnvironment.url("\(damage.rawValue).img")
        for attempt in 1...2 {
            let failure = Locked<(any Error)?>(nil)
            let operation = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: url)) { _, error in
                failure.withLock { $0 = error }
            }
            env.pipeline.fetchImage(with: operation)
            try await env.provider.next().serve(data, entityTag: "\"d\"")
            #expect(await eventually { operation.isFinished })
            #expect(operation.finalResult == nil, "\(damage): delivered as a success")
            #expect(
                (failure.withLock { $0 } as? ImageFetchError)?.code == .couldNotDecodeImage,
                "\(damage): \(String(describing: failure.withLock { $0 }))")
            #expect(
                env.pipeline.diskCache.entry(withIdentifier: url.absoluteString)?.complete == nil,
                "\(damage) attempt \(attempt)")
            #expect(
                env.pipeline.memoryCache.entry(withIdentifier: url.absoluteString, touch: false)?.complete == nil,
                "\(damage) attempt \(attempt)")
            #expect(env.provider.count == attempt, "the damaged body was served from a cache")
        }
    }

    @Test(
        "bytes after the end marker are ignored: JPEG + 8 KB, PNG + 100 bytes, GIF + a newline are delivered and cached"
    )
    func trailingData() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let bodies: [(String, Data)] = [
            (
                "trailing.jpg",
                try DownloaderTestEnvironment.jpeg(width: 160, height: 120, seed: 43)
                    + Data(repeating: 0x11, count: 8192)
            ),
            ("trailing.png", try Self.png() + Data(repeating: 0x22, count: 100)),
            ("trailing.gif", try Self.encoded(.gif) + Data("\n".utf8)),
        ]
        for (name, data) in bodies {
            let url = SteppedPipelineEnvironment.url(name)
            let failure = Locked<(any Error)?>(nil)
            let operation = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: url)) { _, error in
                failure.withLock { $0 = error }
            }
            env.pipeline.fetchImage(with: operation)
            try await env.provider.next().serve(data, entityTag: "\"t\"")
            #expect(await eventually { operation.isFinished })
            let image = operation.finalResult?.imageContainer
            #expect(
                image?.dimensions == CGSize(width: 160, height: 120),
                "\(name): \(String(describing: failure.withLock { $0 }))")
            #expect(image?.isPartial == false, "\(name)")
            #expect(
                await eventually { env.pipeline.diskCache.entry(withIdentifier: url.absoluteString)?.complete != nil },
                "\(name)")
        }
    }

    @Test("a cached PNG whose bytes are flipped on disk is removed, reported and fetched again")
    func flippedBytesOnDisk() async throws {
        let env = try SteppedPipelineEnvironment()
        defer { env.tearDown() }
        let png = try Self.png()
        let url = SteppedPipelineEnvironment.url("flipped.png")
        let identifier = url.absoluteString
        let first = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: url)) { _, _ in }
        env.pipeline.fetchImage(with: first)
        try await env.provider.next().serve(png, entityTag: "\"p\"")
        #expect(await eventually { first.isFinished })
        #expect(await eventually { env.pipeline.diskCache.entry(withIdentifier: identifier)?.complete != nil })
        let file = try #require(env.pipeline.diskCache.entry(withIdentifier: identifier)?.complete?.fileURL)

        var flipped = png
        let idat = try #require(flipped.range(of: Data("IDAT".utf8)))
        flipped[idat.upperBound + 200] ^= 0xFF
        try flipped.write(to: file)
        env.pipeline.clearMemoryCaches()

        let second = env.pipeline.operation(with: GenericImageFetchRequest(imageURL: url)) { _, _ in }
        env.pipeline.fetchImage(with: second)
        try await env.provider.next().serve(png, entityTag: "\"p\"")
        #expect(await eventually { second.isFinished })
        #expect(second.finalResult?.imageSource == .network)
        #expect(second.finalResult?.imageContainer.isPartial == false)
        // The checksum recorded at install finds the flip before any decoder sees the bytes.
        #expect(env.problems.count(.diskCacheEntryDamaged) == 1)
        #expect(await eventually { (try? Data(contentsOf: file)) == png })
    }
}
