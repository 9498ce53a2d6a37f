import CTurboJPEGDirect
import Foundation
import TIPAsyncHTTPClient
import TIPImageServer

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The whole-fetch network row of the README's benchmarks: 1,000 distinct small JPEGs fetched over loopback from the
/// embedded server through real `ImagePipeline` fetch operations (download with the default provider, libcurl's,
/// decode, caching; cold caches: a fresh pipeline per run) vs a plain URLSession + TurboJPEG loop with the same
/// concurrency, and the same fetches with the URLSession and AsyncHTTPClient providers. Every run checks the decoded
/// sizes and the server's request log.
enum NetworkFetchBenchmarks {
    static let concurrency = DownloadBenchmarks.concurrency
    static let imageCount = 1_000

    static func run() throws {
        let server = TIPImageServer()
        try server.start()
        defer { server.stop() }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tip-bench-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { Harness.removeAtExit(root) }

        // The same distinct images as the downloader row: the size changes with the index.
        var urls: [URL] = []
        var dimensions: [(width: Int, height: Int)] = []
        var total = 0
        for index in 0..<imageCount {
            let (width, height) = (200 + index % 40, 150 + index / 40)
            let jpeg = try Inputs.generated(.jpeg, width: width, height: height, quality: 0.8)
            let path = "/fetch/\(index).jpg"
            server.setImage(jpeg, at: path)
            urls.append(server.url(for: path))
            dimensions.append((width, height))
            total += jpeg.count
        }
        print(
            """
            note: \(imageCount) JPEGs, \(total / 1024) KiB in all, \(concurrency) downloads in flight, full-size \
            decodes
            """
        )

        // Cold caches: a fresh pipeline (its own directory, empty caches) per run, made before the clock starts.
        // Diagnostic variant: the same with the caches on tmpfs (/dev/shm), where making a file costs no disk
        // file system's work (ext4 allocating the inode and journalling the rename).
        let onDisk = try PipelineSet(root: root, name: "bench-network-fetch")
        let onURLSession = try PipelineSet(
            root: root.appendingPathComponent("urlsession", isDirectory: true),
            name: "bench-network-fetch-urlsession", provider: URLSessionImageFetchDownloadProvider())
        let onAsyncHTTPClient = try PipelineSet(
            root: root.appendingPathComponent("ahc", isDirectory: true),
            name: "bench-network-fetch-ahc", provider: AsyncHTTPClientImageFetchDownloadProvider())
        let shm = URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        let shmRoot = shm.appendingPathComponent("tip-bench-\(UUID().uuidString)", isDirectory: true)
        let onTmpfs =
            FileManager.default.fileExists(atPath: shm.path)
            ? try PipelineSet(root: shmRoot, name: "bench-network-fetch-tmpfs") : nil
        defer { try? FileManager.default.removeItem(at: shmRoot) }

        /// Every URL through its own fetch operation, all started at once (the downloader bounds the downloads).
        /// Each run adds its own query (ignored by the server), so that no run finds an earlier run's images in
        /// another live pipeline's disk cache (the fetch path looks there before the network, as TIP does).
        func fetches(_ set: PipelineSet) throws {
            let (run, pipeline) = set.next()
            let tally = DownloadTally()
            for (index, plain) in urls.enumerated() {
                let url = URL(string: plain.absoluteString + "?run=\(run)") ?? plain
                tally.enter()
                let expected = dimensions[index]
                let operation = pipeline.operation(with: GenericImageFetchRequest(imageURL: url)) { result, error in
                    if let result, result.imageSource == .network, result.imageContainer.image.width == expected.width,
                        result.imageContainer.image.height == expected.height
                    {
                        tally.succeeded()
                    } else {
                        tally.failed(
                            """
                            \(url.path): \
                            \(result.map {
                                "\($0.imageSource) \($0.imageContainer.image.width)x\($0.imageContainer.image.height)"
                            } ?? "no image"), \
                            error \(String(describing: error))
                            """
                        )
                    }
                }
                pipeline.fetchImage(with: operation)
            }
            try tally.wait(expecting: urls.count)
        }

        let loop = URLSessionLoop(concurrency: concurrency)
        func checked(_ what: String, _ body: @escaping () throws -> Void) -> () throws -> Void {
            {
                server.resetLog()
                try body()
                try server.checkRequestLog(expected: imageCount, what: what)
            }
        }
        var variants = [
            checked("the fetch operations") { try fetches(onDisk) },
            checked("the URLSession + TurboJPEG loop") { try loop.runDecoding(urls: urls, dimensions: dimensions) },
            checked("the fetch operations, URLSession provider") { try fetches(onURLSession) },
            checked("the fetch operations, AsyncHTTPClient provider") { try fetches(onAsyncHTTPClient) },
        ]
        var names = [
            "ImagePipeline fetches", "URLSession + TurboJPEG loop", "ImagePipeline fetches, URLSession provider",
            "ImagePipeline fetches, AsyncHTTPClient provider",
        ]
        if let onTmpfs {
            variants.append(checked("the fetch operations, caches on tmpfs") { try fetches(onTmpfs) })
            names.append("ImagePipeline fetches, caches on tmpfs")
        }
        let samples = try DownloadBenchmarks.interleaved(variants, names: names)
        let name = "\(imageCount) distinct small images fetched over loopback, cold caches (decode included)"
        let baselineName = "URLSession + TurboJPEG loop, \(concurrency) in flight"
        Harness.report(
            name, ours: samples[0], baselineName: baselineName, baseline: samples[1], target: 1.0,
            note:
                """
                ours: ImagePipeline fetch operations (libcurl provider), \(concurrency) downloads in flight, \
                disk-cache writes (write + rename; no fsync by default) included
                """
        )
        Harness.report(
            name + ", URLSession provider", ours: samples[2], baselineName: baselineName, baseline: samples[1],
            target: nil,
            note: "information: the same fetches with the provider the pipeline used before")
        Harness.report(
            name + ", AsyncHTTPClient provider", ours: samples[3], baselineName: baselineName,
            baseline: samples[1], target: nil,
            note: "information: the same fetches with the optional provider of Packages/TIPAsyncHTTPClient")
        if onTmpfs != nil {
            Harness.report(
                name + ", caches on tmpfs", ours: samples[4], baselineName: baselineName, baseline: samples[1],
                target: nil,
                note: "diagnostic: the same fetches with the caches root on /dev/shm, where files cost no disk work")
        }
    }
}

/// Pipelines of one configuration, one per run (warm-up included), so that every run starts with cold caches.
final class PipelineSet {
    let configuration: GlobalConfiguration
    private var pipelines: [ImagePipeline] = []
    private var used = 0

    /// `provider` nil: the default one.
    init(root: URL, name: String, provider: (any ImageFetchDownloadProvider)? = nil) throws {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        configuration = GlobalConfiguration(cachesRootDirectory: root)
        configuration.imageFetchDownloadProvider = provider
        configuration.callbackQueue = DispatchQueue(label: "tip-bench.\(name)-callbacks")
        configuration.maxConcurrentImagePipelineDownloadCount = NetworkFetchBenchmarks.concurrency
        configuration.maxBytesForAllDiskCaches = 1 << 36
        configuration.maxCountForAllDiskCaches = 0
        for run in 0...Harness.iterations {
            guard let pipeline = ImagePipeline(identifier: "\(name)-\(run)", configuration: configuration) else {
                throw BenchmarkFailure("could not make pipeline \(name)-\(run)")
            }
            pipeline.diskCache.waitUntilManifestLoaded()
            pipelines.append(pipeline)
        }
    }

    /// The next unused pipeline and its run number.
    func next() -> (Int, ImagePipeline) {
        defer { used += 1 }
        return (used, pipelines[used])
    }
}

extension URLSessionLoop {
    /// The baseline: each body is decoded with TurboJPEG (full size, RGBX) off the session's queue, and the next
    /// URL starts when the decode is done. Throws unless each answered 200 and decoded to its expected size.
    func runDecoding(urls: [URL], dimensions: [(width: Int, height: Int)]) throws {
        try run(urls: urls, on: DispatchQueue.global(qos: .userInitiated)) { index, data, status, error in
            let decoded = data.map { TurboJPEGDirect().decode($0) }
            if error == nil, status == 200, let decoded, decoded == dimensions[index] { return nil }
            return "status \(status), decoded \(String(describing: decoded)), error \(String(describing: error))"
        }
    }
}
