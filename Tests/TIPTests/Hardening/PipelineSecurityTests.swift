import Foundation
import TIPImageServer
import Testing

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Records problems with their user info (for the secret-leak checks).
private final class HardeningProblemTexts: ProblemObserver {
    let texts = Locked<[String]>([])
    func problemWasEncountered(_ problem: Problem, userInfo: [String: any Sendable]) {
        texts.withLock { $0.append("\(problem) \(userInfo)") }
    }
}

/// Security, end to end through the pipeline: hostile identifiers and URLs stay inside the pipeline's
/// directory, permissions are private, decompression bombs fail from the header, `Authorization` never
/// leaks, planted symlinks are not followed. Cache-level versions: Caches/DiskCacheFaultTests.swift
/// (hostileIdentifiers, plantedSymlink), Caches/SafeIdentifierTests.swift; codec level: Codecs/
/// *RobustnessTests.swift; downloader level: Download/ImageDownloaderHydrationTests.swift.
@Suite("Hardening: security through the pipeline")
struct PipelineSecurityTests {
    static let image: Data = (try? HardeningEnvironment.jpeg(width: 320, height: 240, seed: 11)) ?? Data()

    /// Every path under `root` (relative), directories marked with a trailing slash; symlinks are not entered.
    static func tree(_ root: URL) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var paths: [String] = []
        while let path = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(
                atPath: root.appendingPathComponent(path).path, isDirectory: &isDirectory)
            paths.append(isDirectory.boolValue ? path + "/" : path)
        }
        return paths.sorted()
    }

    @Test("hostile identifiers and URLs never leave the pipeline directory; each round trips through the disk cache")
    func hostileIdentifiers() async throws {
        let env = try await HardeningEnvironment()
        env.server.setImage(Self.image, at: "/ok.jpg")
        let identifiers = [
            "../../escape", "/etc/passwd", "a/../../../b", "nul\u{0}byte", String(repeating: "y", count: 8_192),
            ".", "..", "~root", "\u{FFFF}\u{1}\u{7F}\u{10FFFF}", "#tip-tmp-9", "a%2F..%2F..%2Fz", "C:\\windows\\x",
        ]
        for identifier in identifiers {
            var request = env.request("/ok.jpg")
            request.imageIdentifier = identifier
            let outcome = await env.fetch(request)
            FetchFaultInjectionTests.expectExactImageOrTypedError(outcome, original: Self.image, mayDeliver: true)
            #expect(outcome.result != nil, "\(identifier.prefix(20)): \(String(describing: outcome.error))")
        }
        env.pipeline.clearMemoryCaches()
        for identifier in identifiers {
            var request = env.request("/ok.jpg", sources: .diskCache)
            request.imageIdentifier = identifier
            let outcome = await env.fetch(request)
            #expect(outcome.result?.imageSource == .diskCache, "\(identifier.prefix(20)) did not round trip")
            env.pipeline.copyDiskCacheFile(withIdentifier: identifier) { path, _ in
                if let path { try? FileManager.default.removeItem(atPath: path) }
            }
        }
        env.pipeline.changeIdentifierForImage(withIdentifier: "../../escape", toIdentifier: "../../../../tmp/moved")
        env.pipeline.clearImage(withIdentifier: "/etc/passwd")
        // Hostile URLs (the server may or may not find them; the point is where bytes land).
        for path in [
            "/..%2F..%2F..%2Fetc%2Fpasswd", "/%00.jpg", "/" + String(repeating: "z", count: 4_000) + ".jpg",
            "/a.jpg?x=../../y&z=%2F..%2F", "/%2e%2e/%2e%2e/q.jpg",
        ] {
            env.server.setImage(Self.image, at: path)
            guard let url = URL(string: env.server.baseURL.absoluteString.dropLast() + path) else { continue }
            let outcome = await env.fetch(GenericImageFetchRequest(imageURL: url))
            FetchFaultInjectionTests.expectExactImageOrTypedError(outcome, original: Self.image, mayDeliver: true)
        }
        try await Task.sleep(for: .milliseconds(100))
        #expect(try FileManager.default.contentsOfDirectory(atPath: env.root.path) == [ImagePipeline.directoryName])
        let pipelines = env.root.appendingPathComponent(ImagePipeline.directoryName)
        #expect(try FileManager.default.contentsOfDirectory(atPath: pipelines.path) == [env.pipeline.identifier])
        let inside = Self.tree(env.pipeline.directory)
        #expect(
            inside.allSatisfy { !$0.contains("/") },
            "subdirectories or escaped paths: \(inside.filter { $0.contains("/") })")
        #expect(inside.count >= identifiers.count - 1)
        #expect(!FileManager.default.fileExists(atPath: "/tmp/moved"))
        #expect(env.pipeline.diskCache.totalBytes == PipelineDiskFaultTests.dataFileBytes(env.pipeline))
        await env.tearDown()
    }

    @Test("the pipeline directories are 0700 and the cache files 0600")
    func permissions() async throws {
        let env = try await HardeningEnvironment()
        env.server.setImage(Self.image, at: "/p.jpg")
        env.server.setImage(Self.image, at: "/partial.jpg")
        #expect(await env.fetch(env.request("/p.jpg")).result != nil)
        env.server.setFault(.dropConnection(afterBodyBytes: Self.image.count / 2), for: "/partial.jpg")
        _ = await env.fetch(env.request("/partial.jpg"))
        #expect(
            await eventually(timeout: .seconds(5)) {
                env.pipeline.diskCache.entry(withIdentifier: env.identifier("/partial.jpg"))?.partial != nil
            })
        func mode(_ path: String) -> mode_t {
            var info = stat()
            return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : 0o7777
        }
        #expect(
            mode(env.pipeline.directory.path) == 0o700,
            "pipeline directory \(String(mode(env.pipeline.directory.path), radix: 8))")
        let parent = env.pipeline.directory.deletingLastPathComponent().path
        #expect(mode(parent) & 0o077 == 0, "\(ImagePipeline.directoryName) is \(String(mode(parent), radix: 8))")
        let files = try FileManager.default.contentsOfDirectory(atPath: env.pipeline.directory.path)
        #expect(files.count >= 2)
        for file in files {
            let fileMode = mode(env.pipeline.directory.appendingPathComponent(file).path)
            #expect(fileMode == 0o600, "\(file) is \(String(fileMode, radix: 8))")
        }
        await env.tearDown()
    }

    @Test(
        "decompression bombs (JPEG, PNG, GIF headers far over the pixel limit) fail fast from the header",
        arguments: ["jpeg", "png", "gif"])
    func decompressionBomb(kind: String) async throws {
        let env = try await HardeningEnvironment()
        let bomb: Data
        switch kind {
        case "jpeg":
            bomb = JPEGTestSupport.patchingSOF(Self.image, width: 65_000, height: 65_000)
        case "png":
            let small = PNGTestWriter(
                width: 4, height: 4, colorType: 2, bitDepth: 8, samples: Array(repeating: 7, count: 48)
            ).encoded()
            bomb = PNGTestWriter.replacingDimensions(of: small, width: 1_000_000, height: 1_000_000)
        default:
            var gif = GIFTestWriter(width: 65_535, height: 65_535, globalPalette: [(0, 0, 0), (255, 255, 255)])
            gif.frame(width: 2, height: 2, indices: [0, 1, 1, 0])
            gif.trailer()
            bomb = gif.data
        }
        env.server.setImage(bomb, at: "/bomb")
        // A plain fetch first sets the pace (sanitizers and busy machines are slow).
        env.server.setImage(Self.image, at: "/pace.jpg")
        let clock = ContinuousClock()
        let paceStart = clock.now
        #expect(await env.fetch(env.request("/pace.jpg")).result != nil)
        let pace = clock.now - paceStart
        let start = clock.now
        let outcome = await env.fetch(env.request("/bomb"))
        let elapsed = clock.now - start
        #expect(outcome.completions == 1)
        #expect(outcome.result == nil)
        #expect(outcome.fetchError?.code == .couldNotDecodeImage, "\(String(describing: outcome.error))")
        #expect(
            outcome.fetchError.map { "\($0)".contains("exceeds the limit") } == true,
            "not refused from the header: \(String(describing: outcome.error))")
        #expect(elapsed < .seconds(5) + pace * 3, "took \(elapsed); a plain fetch took \(pace)")
        #expect(env.problems.all.contains(.imageDownloadedCouldNotBeDecoded))
        // Nothing decodable is cached under the bomb's identifier.
        env.pipeline.clearMemoryCaches()
        #expect(await env.fetch(env.request("/bomb", sources: .diskCache)).result == nil)
        await env.tearDown()
    }

    @Test("Authorization values never reach disk metadata, logs, problems, inspection output or errors")
    func authorizationStaysSecret() async throws {
        let env = try await HardeningEnvironment()
        let logger = CapturingLogger()
        let problems = HardeningProblemTexts()
        env.configuration.logger = logger
        env.configuration.problemObserver = problems
        let secret = "Bearer hush-\(UUID().uuidString)"
        let needle = String(secret.dropFirst(7))
        let authorizer = ImageRequestAuthorizer { _, _, done in done(secret, nil) }
        env.server.setImage(Self.image, at: "/s.jpg")
        env.server.setImage(Self.image, at: "/partial.jpg")
        env.server.setFault(.dropConnection(afterBodyBytes: Self.image.count / 2), for: "/partial.jpg")
        env.server.setFault(.status(403, body: Data("forbidden".utf8)), for: "/denied.jpg")
        env.server.setImage(Data("not an image at all".utf8), at: "/junk.jpg")
        var errors: [String] = []
        for path in ["/s.jpg", "/partial.jpg", "/denied.jpg", "/junk.jpg"] {
            var request = env.request(path)
            request.imageRequestAuthorizer = authorizer
            let outcome = await env.fetch(request)
            if let error = outcome.error {
                errors.append("\(error) \(String(reflecting: error)) \((error as NSError).userInfo)")
            }
        }
        #expect(env.server.requests(for: "/s.jpg").first?.header("Authorization") == secret, "the secret was not sent")
        #expect(errors.count == 3)
        #expect(
            await eventually(timeout: .seconds(5)) {
                env.pipeline.diskCache.entry(withIdentifier: env.identifier("/partial.jpg"))?.partial != nil
            })
        let inspection = await withCheckedContinuation { continuation in
            env.pipeline.inspect { continuation.resume(returning: $0) }
        }
        let inspectionText = String(reflecting: inspection)
        #expect(!inspection.completeDiskEntries.isEmpty)
        for text in [inspectionText] + errors + logger.allMessages + problems.texts.withLock({ $0 }) {
            #expect(!text.contains(needle), "the secret leaked: \(text.prefix(300))")
        }
        let files = try FileManager.default.contentsOfDirectory(
            at: env.pipeline.directory, includingPropertiesForKeys: nil)
        #expect(files.count >= 2)
        for file in files {
            #expect(
                try Data(contentsOf: file).range(of: Data(needle.utf8)) == nil,
                "\(file.lastPathComponent) holds the secret")
            let attributes = ExtendedAttributes(path: file.path)
            for key in attributes.keys() {
                #expect(
                    Data(attributes.bytes(key) ?? []).range(of: Data(needle.utf8)) == nil,
                    "xattr \(key) holds the secret")
            }
        }
        await env.tearDown()
    }

    @Test("a symlink planted in the cache directory is never followed out of it")
    func plantedSymlink() async throws {
        let env = try await HardeningEnvironment()
        let outsideImage = try HardeningEnvironment.jpeg(width: 320, height: 240, seed: 12)
        let outside = env.root.appendingPathComponent("outside.jpg")
        try outsideImage.write(to: outside)
        env.server.setImage(Self.image, at: "/victim.jpg")
        env.server.setImage(Self.image, at: "/future.jpg")
        #expect(await env.fetch(env.request("/victim.jpg")).result != nil)
        // Replace the victim's cache file by a link to a different image outside the directory.
        let file = try #require(
            env.pipeline.diskCache.entry(withIdentifier: env.identifier("/victim.jpg"))?.complete?.fileURL)
        try FileManager.default.removeItem(at: file)
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: outside)
        env.pipeline.clearMemoryCaches()
        let viaLink = await env.fetch(env.request("/victim.jpg", sources: .diskCache))
        #expect(viaLink.result == nil, "the disk cache followed a planted symlink")
        let copied = Locked<(String?, Bool)>((nil, false))
        env.pipeline.copyDiskCacheFile(withIdentifier: env.identifier("/victim.jpg")) { path, _ in
            copied.withLock { $0 = (path, true) }
        }
        #expect(await eventually(timeout: .seconds(5)) { copied.withLock { $0.1 } })
        #expect(copied.withLock { $0.0 } == nil, "copyDiskCacheFile copied through a symlink")
        // A fetch from the network over the link replaces the link, not the outside file.
        let again = await env.fetch(env.request("/victim.jpg"))
        FetchFaultInjectionTests.expectExactImageOrTypedError(again, original: Self.image, mayDeliver: true)
        #expect(try Data(contentsOf: outside) == outsideImage, "the outside file was written through the link")
        await env.expectCachesHoldNothingWrong("/victim.jpg", original: Self.image)
        // A link planted under the name the next image will use.
        let futureName = SafeIdentifier.fileName(for: env.identifier("/future.jpg"))
        try FileManager.default.createSymbolicLink(
            at: env.pipeline.directory.appendingPathComponent(futureName), withDestinationURL: outside)
        #expect(await env.fetch(env.request("/future.jpg")).result != nil)
        #expect(try Data(contentsOf: outside) == outsideImage)
        await env.expectCachesHoldNothingWrong("/future.jpg", original: Self.image)
        await env.tearDown()
    }
    @Test("a symlink planted in place of a pipeline's directory does not redirect its files out of the caches root")
    func plantedDirectorySymlink() async throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let outside = root.appendingPathComponent("outside", isDirectory: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let pipelines = root.appendingPathComponent(ImagePipeline.directoryName, isDirectory: true)
        try FileManager.default.createDirectory(at: pipelines, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            at: pipelines.appendingPathComponent("linked"), withDestinationURL: outside)
        let server = TIPImageServer()
        try await server.start()
        server.setImage(Self.image, at: "/l.jpg")
        do {
            let pipeline = try #require(ImagePipeline(identifier: "linked", configuration: configuration))
            pipeline.diskCache.waitUntilManifestLoaded()
            let outcome = await HardeningEnvironment.fetch(
                GenericImageFetchRequest(imageURL: server.url(for: "/l.jpg")), in: pipeline)
            #expect(outcome.result != nil)
            try await Task.sleep(for: .milliseconds(200))
            let written = try FileManager.default.contentsOfDirectory(atPath: outside.path)
            #expect(written.isEmpty, "the pipeline wrote through a planted directory symlink: \(written)")
        }
        await server.stop()
    }
}
