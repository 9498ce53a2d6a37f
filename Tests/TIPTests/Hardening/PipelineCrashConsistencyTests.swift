import Foundation
import TIPImageServer
import Testing

@testable import TIP

/// Crash consistency of a whole pipeline: the harness (`TIPCacheCrashHarness --download`) fetches from a
/// throttled TIPImageServer, cancels mid-download, stores, renames and clears in one cache directory and is
/// killed with SIGKILL at random moments. After the kills a fresh pipeline on the same directory serves only
/// the right bytes, resumes partials to the exact image, and its totals match the files. The cache-level
/// version (entries written directly, 80 kills) is Caches/DiskCacheCrashTests.swift.
@Suite("Hardening: pipeline crash consistency", .serialized)
struct PipelineCrashConsistencyTests {
    static let imageCount = 6

    @Test(
        "SIGKILL at random moments (2 x 100 kills): a fresh pipeline serves only exact images and resumes partials",
        .timeLimit(.minutes(10)), arguments: [UInt64(1), 2])
    func killedPipelines(seed: UInt64) async throws {
        guard let harness = DiskCacheCrashTests.harness else {
            print("skipped: TIPCacheCrashHarness not found next to the test bundle (run `swift build` first)")
            return
        }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tip-crash-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let server = TIPImageServer()
        try await server.start()
        var images: [Data] = []
        for index in 0..<Self.imageCount {
            let image = try HardeningEnvironment.jpeg(
                width: 360 + 40 * index, height: 300, seed: seed * 100 + UInt64(index))
            server.setImage(image, at: "/img\(index).jpg")
            images.append(image)
        }
        // About 40-90 ms per image: kills land before, during and after downloads.
        server.setDefaultThrottle(.init(bytesPerSecond: 1_200_000, chunkSize: 4_096))
        let base = String(server.baseURL.absoluteString.dropLast())
        var random = SplitMix64(seed: seed)
        var checked = (complete: 0, partial: 0, resumed: 0)
        let kills = 100
        for kill in 1...kills {
            let process = Process()
            process.executableURL = harness
            process.arguments = [
                "--download", root.path, base, String(Self.imageCount), String(random.next() % 1_000_000),
            ]
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) } }
            let wait = kill == kills ? 800_000 : 20_000 + random.next() % 230_000
            try await Task.sleep(for: .microseconds(Int64(wait)))
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(
                process.terminationReason == .uncaughtSignal,
                "the harness exited by itself: \(process.terminationStatus)")
            if kill % 25 == 0 {
                let counts = try await verify(root: root, base: base, images: images)
                checked.complete += counts.complete
                checked.partial += counts.partial
                checked.resumed += counts.resumed
            }
        }
        print(
            """
            pipeline crash consistency (seed \(seed)): \(kills) kills, \(checked.complete) complete and \
            \(checked.partial) partial entries checked, \(checked.resumed) resumes
            """
        )
        #expect(checked.complete > 0)
        await server.stop()
    }

    /// The image index an identifier stands for (URL, "stored-<i>" or "moved-<i>").
    static func index(of identifier: String, base: String) -> Int? {
        for prefix in ["\(base)/img", "stored-", "moved-"] where identifier.hasPrefix(prefix) {
            return Int(identifier.dropFirst(prefix.count).replacingOccurrences(of: ".jpg", with: ""))
        }
        return nil
    }

    /// Opens a fresh pipeline on `root`, checks every disk entry against the originals, the totals against
    /// the files, then fetches every image (resuming partials) and expects exact images.
    private func verify(root: URL, base: String, images: [Data]) async throws -> (
        complete: Int, partial: Int, resumed: Int
    ) {
        let configuration = GlobalConfiguration(cachesRootDirectory: root)
        configuration.callbackQueue = DispatchQueue(label: "crash-verify.callbacks")
        var counts = (complete: 0, partial: 0, resumed: 0)
        do {
            let pipeline = try #require(ImagePipeline(identifier: "crash", configuration: configuration))
            pipeline.diskCache.waitUntilManifestLoaded()
            let entries = configuration.diskDomain.sync { pipeline.diskCache.lru.entriesNewestFirst.map(\.value) }
            var partials = Set<Int>()
            for entry in entries {
                guard let index = Self.index(of: entry.identifier, base: base), images.indices.contains(index) else {
                    Issue.record("unexpected identifier on disk: \(entry.identifier)")
                    continue
                }
                let original = images[index]
                if let complete = entry.complete {
                    let data = pipeline.diskCache.completeData(of: complete)
                    #expect(
                        data.map { SHA1.hexDigest(of: $0) } == SHA1.hexDigest(of: original),
                        "wrong complete bytes for \(entry.identifier)")
                    counts.complete += 1
                }
                if let partial = entry.partial {
                    let data = try #require(pipeline.diskCache.data(of: partial))
                    #expect(
                        data.count <= original.count && original.prefix(data.count) == data,
                        "wrong partial bytes for \(entry.identifier)")
                    if entry.complete == nil, entry.identifier.hasPrefix(base) { partials.insert(index) }
                    counts.partial += 1
                }
            }
            let names = try FileManager.default.contentsOfDirectory(atPath: pipeline.directory.path)
            #expect(!names.contains { $0.hasPrefix(DiskCacheFiles.temporaryPrefix) }, "stray temporary files")
            #expect(pipeline.diskCache.totalBytes == PipelineDiskFaultTests.dataFileBytes(pipeline))
            #expect(
                names.filter { !$0.contains("#") }.count
                    == entries.reduce(0) { $0 + ($1.complete == nil ? 0 : 1) + ($1.partial == nil ? 0 : 1) })
            // Every image, through the pipeline: exact, and a partial resumes.
            for (index, original) in images.enumerated() {
                var request = GenericImageFetchRequest(imageURL: URL(string: "\(base)/img\(index).jpg") ?? root)
                request.loadingSources = .all
                let outcome = await HardeningEnvironment.fetch(request, in: pipeline)
                FetchFaultInjectionTests.expectExactImageOrTypedError(outcome, original: original, mayDeliver: true)
                #expect(outcome.result != nil, "img\(index): \(String(describing: outcome.error))")
                if partials.contains(index) {
                    #expect(
                        outcome.result?.imageSource == .networkResumed,
                        "img\(index) was not resumed: \(String(describing: outcome.result?.imageSource))")
                    if outcome.result?.imageSource == .networkResumed { counts.resumed += 1 }
                }
                let identifier = "\(base)/img\(index).jpg"
                #expect(
                    await eventually(timeout: .seconds(5)) {
                        pipeline.diskCache.entry(withIdentifier: identifier)?.complete != nil
                    })
            }
            // Half the images leave the disk again, so the next children download (and get killed mid-body).
            for index in images.indices where index % 2 == counts.complete % 2 {
                pipeline.clearImage(withIdentifier: "\(base)/img\(index).jpg")
            }
        }
        // The pipeline is gone; let its last disk work finish before the next child writes.
        try await Task.sleep(for: .milliseconds(50))
        configuration.diskDomain.sync {}
        return counts
    }
}
