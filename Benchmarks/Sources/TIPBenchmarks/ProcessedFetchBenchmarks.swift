import Foundation
import TIPImageServer

@testable import TIP

/// The processing row of the fetch targets: 100 concurrent fetches of one URL with the same target and processors
/// against one such fetch, over loopback from the embedded server, cold caches each run (a fresh pipeline). The
/// pipeline shares the download and makes the processed image once; every run checks that the server saw exactly
/// one request and that the processors ran once.
enum ProcessedFetchBenchmarks {
    static let fetchCount = 100

    static func run() throws {
        let server = TIPImageServer()
        try server.start()
        defer { server.stop() }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tip-bench-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { Harness.removeAtExit(root) }
        let jpeg = try Inputs.fixture("carnival.jpg") ?? Inputs.generated(.jpeg, width: 1880, height: 1253)
        print(
            """
            note: one \(jpeg.count / 1024) KiB JPEG, \(fetchCount) fetches at once, 200x200 crop-to-fill + circle \
            + blur(2)
            """
        )

        let configuration = GlobalConfiguration(cachesRootDirectory: root)
        configuration.callbackQueue = DispatchQueue(label: "tip-bench.processed-callbacks")
        let processCalls = Locked(0)
        let counting = ImageProcessors.Anonymous(identifier: "bench.count") { image, _ in
            processCalls.withLock { $0 += 1 }
            return image
        }
        let processors: [any ImageProcessor] = [.cropToFill(), .circle(), .gaussianBlur(sigma: 2), counting]

        // A fresh pipeline (its own directory) and a URL of its own per run keep every run cold (a new pipeline
        // would copy the image from an earlier run's disk cache, as TIP's pipelines do); made before the clock starts.
        var pipelines: [ImagePipeline] = []
        for index in 0..<(2 * (Harness.iterations + 1)) {
            server.setImage(jpeg, at: "/processed-\(index).jpg")
            guard let pipeline = ImagePipeline(identifier: "bench-processed-\(index)", configuration: configuration)
            else {
                throw BenchmarkFailure("could not make pipeline bench-processed-\(index)")
            }
            pipeline.diskCache.waitUntilManifestLoaded()
            pipelines.append(pipeline)
        }
        var next = 0
        var sharedImages = 0
        func fetches(_ count: Int) throws {
            let pipeline = pipelines[next]
            let path = "/processed-\(next).jpg"
            next += 1
            var request = GenericImageFetchRequest(
                imageURL: server.url(for: path), identifier: nil,
                targetDimensions: CGSize(width: 200, height: 200), targetContentMode: .scaleAspectFill)
            request.processors = processors
            server.resetLog()
            processCalls.withLock { $0 = 0 }
            let group = DispatchGroup()
            let images = Locked<[ObjectIdentifier: Int]>([:])
            let failures = Locked(0)
            for _ in 0..<count {
                group.enter()
                let operation = pipeline.operation(with: request) { result, _ in
                    if let result, result.imageContainer.dimensions == CGSize(width: 200, height: 200) {
                        images.withLock { $0[ObjectIdentifier(result.imageContainer), default: 0] += 1 }
                    } else {
                        failures.withLock { $0 += 1 }
                    }
                    group.leave()
                }
                pipeline.fetchImage(with: operation)
            }
            group.wait()
            let requests = server.requestCount(for: path)
            let calls = processCalls.withLock { $0 }
            guard failures.withLock({ $0 }) == 0, requests == 1, calls == 1 else {
                throw BenchmarkFailure(
                    "\(count) processed fetches: \(failures.withLock { $0 }) failed, \(requests) requests, "
                        + "\(calls) processor calls; expected 0, 1 and 1")
            }
            sharedImages = images.withLock { $0.count }
        }

        let samples = try DownloadBenchmarks.interleaved(
            [{ try fetches(fetchCount) }, { try fetches(1) }],
            names: ["\(fetchCount) fetches", "one fetch"])
        Harness.report(
            "\(fetchCount) concurrent fetches of one URL with processors (crop, circle, blur)", ours: samples[0],
            baselineName: "one fetch with the same processors", baseline: samples[1], target: 1.2,
            note: "exactly 1 request and 1 processing per run (checked); \(sharedImages) image object(s) shared by all")
        withExtendedLifetime(pipelines) {}
    }
}
