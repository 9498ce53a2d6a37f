import Foundation

@testable import TIP

/// The fetch rows of the README's benchmark table: the synchronous rendered-cache hit through `fetchImage(with:)`, and
/// progressive streaming through a whole fetch (stubbed download, scans rendered by the default policy), and 100
/// concurrent processed fetches of one URL (``ProcessedFetchBenchmarks``).
enum FetchBenchmarks {
    static func run() throws {
        try synchronousRenderedHit()
        try progressiveFetch()
        try ProcessedFetchBenchmarks.run()
    }

    /// A delegate that does nothing but count finals (the cheapest real delegate).
    private final class CountingDelegate: ImageFetchDelegate {
        let finals = Locked(0)
        func imageFetchOperation(_ operation: ImageFetchOperation, didLoadFinalImage result: ImageFetchResult) {
            finals.withLock { $0 += 1 }
        }
    }

    /// Records when the first scan came (its progress) and when the fetch ended.
    private final class ProgressiveDelegate: ImageFetchDelegate {
        let firstScanProgress = Locked<Float?>(nil)
        let scans = Locked(0)
        let done = DispatchSemaphore(value: 0)
        /// Whether scans are rendered (false: the same fetch with the final image only).
        let rendersScans: Bool
        init(rendersScans: Bool = true) { self.rendersScans = rendersScans }
        var handlesProgressiveLoading: Bool { rendersScans }
        func imageFetchOperation(
            _ operation: ImageFetchOperation, shouldLoadProgressivelyWithIdentifier identifier: String,
            url: URL, imageType: ImageType, originalDimensions: CGSize
        ) -> Bool { rendersScans }
        func imageFetchOperation(
            _ operation: ImageFetchOperation, didUpdateProgressiveImage result: ImageFetchResult, progress: Float
        ) {
            scans.withLock { $0 += 1 }
            firstScanProgress.withLock { if $0 == nil { $0 = progress } }
        }
        func imageFetchOperation(_ operation: ImageFetchOperation, didLoadFinalImage result: ImageFetchResult) {
            done.signal()
        }
        func imageFetchOperation(_ operation: ImageFetchOperation, didFailToLoadFinalImage error: any Error) {
            done.signal()
        }
    }

    private static func configuration() throws -> (GlobalConfiguration, URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tip-bench-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let configuration = GlobalConfiguration(cachesRootDirectory: root)
        configuration.callbackQueue = DispatchQueue(label: "tip-bench.callbacks")
        return (configuration, root)
    }

    /// 10,000 fetches answered inside `fetchImage(with:)` on the callback queue (operation made, rendered
    /// cache looked up, final callback run) vs as many lookups in a dictionary behind a lock.
    static func synchronousRenderedHit() throws {
        let (configuration, root) = try configuration()
        defer { Harness.removeAtExit(root) }
        let stubs = StubbingImageFetchDownloadProvider()
        configuration.imageFetchDownloadProvider = stubs
        guard let pipeline = ImagePipeline(identifier: "bench-sync", configuration: configuration) else { return }
        let url = URL(string: "https://bench.tip.invalid/sync.jpg")!
        stubs.addDownloadStub(
            forRequestURL: url, responseData: try Inputs.generated(.jpeg, width: 400, height: 300),
            responseMIMEType: "image/jpeg", shouldSupportResuming: false, suggestedBitrate: 0)
        let request = GenericImageFetchRequest(
            imageURL: url, identifier: nil, targetDimensions: CGSize(width: 100, height: 100),
            targetContentMode: .scaleAspectFit)
        // One real fetch (stubbed download, decode) fills the rendered cache.
        let warm = pipeline.operation(with: request, delegate: nil)
        pipeline.fetchImage(with: warm)
        warm.waitUntilFinished()
        guard let image = warm.finalResult?.imageContainer else { throw ImageDecodingError.truncatedData }
        let count = 10_000
        let delegate = CountingDelegate()
        var synchronous = 0
        let ours = Harness.measure {
            configuration.callbackQueue.sync {
                for _ in 0..<count {
                    let operation = pipeline.operation(with: request, delegate: delegate)
                    pipeline.fetchImage(with: operation)
                    if operation.isFinished { synchronous += 1 }
                }
            }
        }
        let table = Locked([String: ImageContainer]())
        table.withLock { $0[url.absoluteString] = image }
        let key = url.absoluteString
        var found = 0
        let baseline = Harness.measure {
            for _ in 0..<count where table.withLock({ $0[key] }) != nil { found += 1 }
        }
        let perFetch = ours.median / Double(count) * 1000
        let expected = count * (Harness.iterations + 1)
        Harness.report(
            "synchronous rendered-cache hit via fetchImage (\(count) fetches)", ours: ours,
            baselineName: "locked dictionary lookups", baseline: baseline, target: nil,
            note:
                "\(Harness.format(perFetch, digits: 2)) µs per fetch (target ≤ 5 µs: "
                + "\(perFetch <= 5 ? "met" : "MISSED")); "
                + "\(synchronous == expected ? "all" : "\(synchronous) of \(expected)") answered synchronously")
    }

    /// carnival.pjpg through a whole fetch: a stubbed download paced in 16 KiB chunks, each scan the
    /// default policy picks rendered at 400x400, then the final image; process CPU vs one complete TurboJPEG
    /// decode.
    static func progressiveFetch() throws {
        let pjpeg =
            try Inputs.fixture("carnival.pjpg")
            ?? Inputs.generated(.jpeg, width: 1880, height: 1253, options: [.progressive])
        let (configuration, root) = try configuration()
        defer { Harness.removeAtExit(root) }
        let stubs = StubbingImageFetchDownloadProvider()
        configuration.imageFetchDownloadProvider = stubs
        guard let pipeline = ImagePipeline(identifier: "bench-progressive", configuration: configuration) else {
            return
        }
        let target = CGSize(width: 400, height: 400)
        // Paced so that every 16 KiB chunk arrives on its own (about 1.5 s per fetch): CPU time is what counts.
        let bitrate = UInt64(pjpeg.count * 8) * 2 / 3
        var run = 0
        var firstScan: Float = 0
        var scans = 0
        func fetches(rendersScans: Bool) throws -> Samples {
            try Harness.measureCPU {
                run += 1
                let url = URL(string: "https://bench.tip.invalid/carnival-\(run).pjpg")!
                stubs.addDownloadStub(
                    forRequestURL: url, responseData: pjpeg, responseMIMEType: "image/jpeg",
                    shouldSupportResuming: false, suggestedBitrate: bitrate)
                let delegate = ProgressiveDelegate(rendersScans: rendersScans)
                let request = GenericImageFetchRequest(
                    imageURL: url, identifier: nil, targetDimensions: target,
                    targetContentMode: .scaleAspectFit)
                let operation = pipeline.operation(with: request, delegate: delegate)
                pipeline.fetchImage(with: operation)
                delegate.done.wait()
                guard operation.finalResult != nil else { throw ImageDecodingError.truncatedData }
                if rendersScans {
                    firstScan = delegate.firstScanProgress.withLock { $0 } ?? 1
                    scans = delegate.scans.withLock { $0 }
                }
            }
        }
        let ours = try fetches(rendersScans: true)
        let finalOnly = try fetches(rendersScans: false)
        // The baseline is PERFORMANCE.md's: one complete TurboJPEG decode at the fetch's DCT scale (TIP's own
        // complete decode of a progressive file, with its own AC decoder, is faster than that now).
        let options = ImageDecodingOptions(targetDimensions: target, targetContentMode: .scaleAspectFit)
        let turbo = TurboJPEGDirect()
        let denominator = turbo.scaleDenominator(pjpeg, for: options)
        let baseline = Harness.measureCPU { turbo.decode(pjpeg, num: 1, denom: denominator) }
        let baselineName = "one complete TurboJPEG decode at 1/\(denominator) (CPU)"
        Harness.report(
            "progressive JPEG fetch, 400x400 fit (\(scans) scans + final, downloads and caching included)", ours: ours,
            baselineName: baselineName, baseline: baseline, target: 2.5,
            note:
                "first scan shown at \(Harness.format(Double(firstScan) * 100, digits: 1))% of the bytes (target ≤ 5%)")
        Harness.report(
            "same fetch, final image only (the delegate declines progressive loading)", ours: finalOnly,
            baselineName: baselineName, baseline: baseline, target: nil,
            note: "information: what the download, the caches and the hand-offs cost without rendering scans")
    }
}
