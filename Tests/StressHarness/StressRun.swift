import Foundation
import TIP
import TIPImageServer

/// What a stress run does.
struct StressSettings: Sendable {
    /// Fetch operations in all (stores and cache clears come on top).
    var operations = 10_000
    var pipelines = 4
    var images = 48
    /// Fetches in flight at most (the issuing thread waits for a slot).
    var maxInFlight = 48
    var seed: UInt64 = 1
}

/// What a stress run found. `problems` is empty when every check held.
struct StressReport: Sendable, CustomStringConvertible {
    var fetches = 0
    var succeeded = 0
    var failed = 0
    var cancelled = 0
    var stores = 0
    var dependencies = 0
    var priorityChanges = 0
    var cancellations = 0
    var budgetSamples = 0
    var peakBytes: (rendered: Int64, memory: Int64, disk: Int64) = (0, 0, 0)
    var budgets: (rendered: Int64, memory: Int64, disk: Int64) = (0, 0, 0)
    var cachedImagesChecked = 0
    var seconds = 0.0
    var problems: [String] = []
    /// Findings already reported as bugs (kept apart so the run can still pass): cache hits with target
    /// sizing report the decoded size as `imageOriginalDimensions` (ImageFetchOperation+Flow.swift).
    var knownIssues: [String] = []

    var description: String {
        """
        stress: \(fetches) fetches (\(succeeded) succeeded, \(failed) failed, \(cancelled) cancelled), \
        \(stores) stores, \
        \(dependencies) dependencies, \(priorityChanges) priority changes, \(cancellations) cancel calls in \
        \(String(format: "%.1f", seconds)) s
        budgets sampled \(budgetSamples) times: peak rendered \(peakBytes.rendered)/\(budgets.rendered) B, \
        memory \(peakBytes.memory)/\(budgets.memory) B, disk \(peakBytes.disk)/\(budgets.disk) B; \
        \(cachedImagesChecked) cached images checked exact
        problems: \(problems.isEmpty ? "none" : String(problems.count)); known issues: \(knownIssues.count)\
        \(knownIssues.first.map { " (e.g. " + $0 + ")" } ?? "")
        """ + problems.prefix(20).map { "\n  - " + $0 }.joined()
    }
}

/// One fetch's bookkeeping.
private struct StressRecord {
    /// Held from issue until the post-completion check, then released (results hold images).
    var operation: ImageFetchOperation?
    var checked = false
    var completions = 0
    var succeeded = false
    var cancelled = false
}

/// 10,000 fetches across 4 pipelines with random cancellation, priority changes, dependencies, stores and
/// cache clears against an embedded TIPImageServer, checking that every operation finishes exactly once
/// with a consistent state, that the cache budgets hold at every sample, that cached images are exact, and
/// (after tear-down) that pipelines and operations are released and the totals drop to zero.
final class StressRun: @unchecked Sendable {  // `lock` guards `records`, `report` and `running`
    let configuration: GlobalConfiguration
    let settings: StressSettings
    private let makePipeline: @Sendable (String) -> ImagePipeline?
    private let lock = NSLock()
    private let checks = DispatchQueue(label: "stress.checks")
    private var records: [StressRecord]
    private var report = StressReport()
    private var running = true

    /// A run with `configuration` (its budgets are lowered for the run) and pipelines made by `makePipeline`
    /// (which must use `configuration`).
    init(
        configuration: GlobalConfiguration, settings: StressSettings,
        makePipeline: @escaping @Sendable (String) -> ImagePipeline?
    ) {
        self.configuration = configuration
        self.settings = settings
        self.makePipeline = makePipeline
        records = Array(repeating: StressRecord(), count: settings.operations)
    }

    private func locked<R>(_ body: (StressRun) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(self)
    }

    private func problem(_ text: String) {
        locked { $0.report.problems.append(text) }
    }

    /// Runs everything on the calling thread (blocking it) and returns the report.
    func run() throws -> StressReport {
        let clock = ContinuousClock()
        let start = clock.now
        let images = try StressImages(count: settings.images, seed: settings.seed).images
        let server = TIPImageServer()
        try server.start()
        defer { server.stop() }
        for (index, image) in images.enumerated() {
            server.setImage(image.data, at: image.path)
            // Every fourth image trickles, so cancellations and priority changes land mid-download.
            if index % 4 == 1 { server.setThrottle(.init(bytesPerSecond: 300_000, chunkSize: 2_048), for: image.path) }
        }
        server.setFault(.status(404, body: nil), for: "/missing.jpg")
        server.setImage(images[0].data, at: "/dropped.jpg")
        server.setFault(.dropConnection(afterBodyBytes: images[0].data.count / 2), for: "/dropped.jpg")

        configuration.maxBytesForAllRenderedCaches = 1_500_000
        configuration.maxBytesForAllMemoryCaches = 800_000
        configuration.maxBytesForAllDiskCaches = 2_000_000
        configuration.maxCountForAllRenderedCaches = 40
        configuration.maxCountForAllMemoryCaches = 40
        configuration.maxCountForAllDiskCaches = 60
        locked {
            $0.report.budgets = (
                configuration.maxBytesForAllRenderedCaches, configuration.maxBytesForAllMemoryCaches,
                configuration.maxBytesForAllDiskCaches
            )
        }

        var pipelines: [ImagePipeline] = []
        let tag = String(UInt64.random(in: 0..<UInt64.max), radix: 36)
        for index in 0..<settings.pipelines {
            guard let pipeline = makePipeline("stress-\(tag)-\(index)") else { throw POSIXError(.EEXIST) }
            pipelines.append(pipeline)
        }

        let sampler = Thread { [self] in sampleBudgets() }
        sampler.start()
        let weakOperations = issue(images: images, pipelines: pipelines, server: server)
        waitForCompletions(timeout: 300)
        locked { $0.running = false }
        // Late duplicate completions would show up here; the post-completion checks finish.
        let checksDeadline = Date().addingTimeInterval(10)
        repeat {
            Thread.sleep(forTimeInterval: 0.2)
        } while Date() < checksDeadline && !locked({ $0.records.allSatisfy(\.checked) })
        checkRecords()
        checkCaches(pipelines: pipelines, images: images, server: server)

        // Release everything; nothing may stay alive.
        let weakPipelines = pipelines.map { WeakBox($0) }
        pipelines.removeAll()
        var remaining = 0
        for _ in 0..<200 {
            Thread.sleep(forTimeInterval: 0.025)
            remaining = weakOperations.filter { $0.value != nil }.count + weakPipelines.filter { $0.value != nil }.count
            if remaining == 0 { break }
        }
        if remaining != 0 {
            problem(
                """
                \(weakPipelines.filter { $0.value != nil }.count) pipelines and \
                \(weakOperations.filter { $0.value != nil }.count) operations still alive after tear-down
                """
            )
        }
        let totals = (
            configuration.totalBytesForAllRenderedCaches, configuration.totalBytesForAllMemoryCaches,
            configuration.totalBytesForAllDiskCaches
        )
        if totals != (0, 0, 0) { problem("cache totals after tear-down are not zero: \(totals)") }
        return locked {
            $0.report.seconds =
                Double((clock.now - start).components.seconds)
                + Double((clock.now - start).components.attoseconds) / 1e18
            return $0.report
        }
    }

    // MARK: Issuing

    private func issue(images: [StressImages.Image], pipelines: [ImagePipeline], server: TIPImageServer) -> [WeakBox<
        ImageFetchOperation
    >] {
        var state = settings.seed &* 0x9E37_79B9_7F4A_7C15 | 1
        func next(_ bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(max(1, bound)))
        }
        let slots = DispatchSemaphore(value: settings.maxInFlight)
        let timers = DispatchQueue(label: "stress.timers", attributes: .concurrent)
        var operations: [WeakBox<ImageFetchOperation>] = []
        operations.reserveCapacity(settings.operations)
        var recent: [ImageFetchOperation] = []
        for number in 0..<settings.operations {
            let pipeline = pipelines[next(pipelines.count)]
            let imageIndex = next(images.count + 2)
            let path =
                imageIndex < images.count
                ? images[imageIndex].path : (imageIndex == images.count ? "/missing.jpg" : "/dropped.jpg")
            var request = GenericImageFetchRequest(imageURL: server.url(for: path))
            if next(3) > 0 {
                let side = CGFloat(16 + next(140))
                request.targetDimensions = CGSize(width: side, height: side * CGFloat(1 + next(2)))
                request.targetContentMode =
                    [ContentMode.scaleAspectFit, .scaleAspectFill, .scaleToFill, .center][next(4)]
            }
            let kind = next(100)
            var store: (any DependencyOperation)?
            if kind < 8, imageIndex < images.count {
                // A store under its own identifier, and this fetch waits for it.
                var storeRequest = GenericImageStoreRequest(
                    imageURL: server.url(for: path), identifier: "stored-\(imageIndex)")
                storeRequest.imageData = images[imageIndex].data
                request.imageIdentifier = "stored-\(imageIndex)"
                request.loadingSources = next(2) == 0 ? [.memoryCache, .diskCache] : .all
                locked { $0.report.stores += 1 }
                let storeCompletions = Locked(0)
                store = pipeline.storeImage(with: storeRequest) { [self] _, _ in
                    if storeCompletions.withLock({
                        $0 += 1; return $0
                    }) > 1 {
                        problem("a store completed twice")
                    }
                }
            }
            // "/missing.jpg" never has an image; "/dropped.jpg" drops every response half-way, yet resuming
            // can complete image 0.
            let expected: StressImages.Image? =
                imageIndex < images.count ? images[imageIndex] : (imageIndex == images.count ? nil : images[0])
            slots.wait()
            let operation = pipeline.operation(with: request) { [self, request] result, error in
                // "/dropped.jpg" drops every response half-way, yet resuming can still complete image 0.
                complete(number, result: result, error: error, expected: expected, request: request)
                slots.signal()
            }
            operations.append(WeakBox(operation))
            locked { $0.records[number].operation = operation }
            if let store {
                store.makeDependencyOfTargetOperation(operation)
                locked { $0.report.dependencies += 1 }
            } else if kind < 18, let previous = recent.last {
                operation.addDependency(previous)
                locked { $0.report.dependencies += 1 }
            }
            if next(5) == 0 { operation.priority = [.veryLow, .low, .normal, .high, .veryHigh][next(5)] }
            let immediateCancel = next(40) == 0
            if immediateCancel {
                operation.cancel()
                locked { $0.report.cancellations += 1 }
            }
            pipeline.fetchImage(with: operation)
            if !immediateCancel, next(5) == 0 {
                let delay = next(15)
                timers.asyncAfter(deadline: .now() + .milliseconds(delay)) { operation.cancel() }
                locked { $0.report.cancellations += 1 }
            }
            if next(5) == 0 {
                let delay = next(10)
                let priority: ImageFetchPriority = [.veryLow, .low, .normal, .high, .veryHigh][next(5)]
                timers.asyncAfter(deadline: .now() + .milliseconds(delay)) { operation.priority = priority }
                locked { $0.report.priorityChanges += 1 }
            }
            switch next(200) {
            case 0: pipeline.clearMemoryCaches()
            case 1: pipeline.clearDiskCache()
            case 2..<6:
                pipeline.clearImage(withIdentifier: server.url(for: images[next(images.count)].path).absoluteString)
            case 6..<9:
                pipeline.dirtyRenderedMemoryCacheImage(
                    withIdentifier: server.url(for: images[next(images.count)].path).absoluteString)
            default: break
            }
            recent.append(operation)
            if recent.count > 8 { recent.removeFirst() }
        }
        locked { $0.report.fetches = settings.operations }
        return operations
    }

    private func complete(
        _ number: Int, result: ImageFetchResult?, error: (any Error)?,
        expected: StressImages.Image?, request: GenericImageFetchRequest
    ) {
        let cancelled = (error as? ImageFetchError)?.code == .cancelled
        let count = locked { run -> Int in
            run.records[number].completions += 1
            if run.records[number].completions == 1 {
                run.records[number].succeeded = result != nil
                run.records[number].cancelled = cancelled
                if result != nil {
                    run.report.succeeded += 1
                } else if cancelled {
                    run.report.cancelled += 1
                } else {
                    run.report.failed += 1
                }
            }
            return run.records[number].completions
        }
        if count > 1 { problem("fetch \(number) completed \(count) times") }
        // The operation finishes right after its completion block: check it a moment later, then let it go.
        checks.asyncAfter(deadline: .now() + .milliseconds(30)) { [self] in checkFinished(number) }
        if (result == nil) == (error == nil) {
            problem("fetch \(number) completed with result \(result != nil) and error \(error != nil)")
        }
        guard let result else {
            if !cancelled, !(error is ImageFetchError) {
                problem("fetch \(number) failed with an untyped error: \(String(describing: error))")
            }
            return
        }
        guard let expected else { return problem("fetch \(number) of a missing image delivered an image") }
        let dimensions = result.imageContainer.dimensions
        let original = CGSize(width: expected.width, height: expected.height)
        if result.imageOriginalDimensions != original {
            let text =
                """
                fetch \(number): original dimensions \(result.imageOriginalDimensions) from \
                \(result.imageSource), expected \(expected.width)x\(expected.height)
                """
            problem(text)
        }
        if request.targetDimensions == .zero, dimensions != original {
            problem("fetch \(number): full-size fetch delivered \(dimensions) from \(result.imageSource)")
        }
        if request.targetDimensions == .zero, result.imageContainer.image != expected.decoded {
            problem("fetch \(number): full-size fetch delivered other pixels from \(result.imageSource)")
        }
        if dimensions.width < 1 || dimensions.height < 1 {
            problem(
                """
                fetch \(number): \(dimensions) for \(expected.width)x\(expected.height) at target \
                \(request.targetDimensions)
                """
            )
        }
    }

    // MARK: Checks

    private func waitForCompletions(timeout: TimeInterval) {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if locked({ $0.records.allSatisfy { $0.completions > 0 } }) { return }
            Thread.sleep(forTimeInterval: 0.01)
        }
        let pending = locked { run in run.records.enumerated().filter { $0.element.completions == 0 }.map(\.offset) }
        problem("\(pending.count) fetches never completed (first: \(pending.prefix(10)))")
    }

    /// After a completion: the operation finishes (within 5 s, for slow sanitizer runs), in the state its
    /// completion announced.
    private func checkFinished(_ number: Int, attempt: Int = 0) {
        let pending = locked { $0.records[number].operation }
        if let pending, !pending.isFinished, attempt < 100 {
            checks.asyncAfter(deadline: .now() + .milliseconds(50)) { [self] in
                checkFinished(number, attempt: attempt + 1)
            }
            return
        }
        let (operation, record) = locked { run -> (ImageFetchOperation?, StressRecord) in
            let operation = run.records[number].operation
            run.records[number].operation = nil
            run.records[number].checked = true
            return (operation, run.records[number])
        }
        guard let operation else { return }
        if !operation.isFinished { problem("fetch \(number) is not finished 5 s after its completion") }
        let state = operation.state
        let expected: ImageFetchOperationState =
            record.succeeded ? .succeeded : (record.cancelled ? .cancelled : .failed)
        if state != expected { problem("fetch \(number): state \(state), completion said \(expected)") }
    }

    private func checkRecords() {
        let records = locked { $0.records }
        for (number, record) in records.enumerated() {
            if record.completions != 1 { problem("fetch \(number) completed \(record.completions) times") }
            if !record.checked { problem("fetch \(number) was never checked after its completion") }
        }
        locked { run in for index in run.records.indices { run.records[index].operation = nil } }
    }

    private func sampleBudgets() {
        while locked({ $0.running }) {
            let c = configuration
            let rendered = c.totalBytesForAllRenderedCaches, memory = c.totalBytesForAllMemoryCaches,
                disk = c.totalBytesForAllDiskCaches
            let counts = (
                c.totalCountForAllRenderedCaches, c.totalCountForAllMemoryCaches, c.totalCountForAllDiskCaches
            )
            locked { run in
                run.report.budgetSamples += 1
                run.report.peakBytes = (
                    max(run.report.peakBytes.rendered, rendered), max(run.report.peakBytes.memory, memory),
                    max(run.report.peakBytes.disk, disk)
                )
            }
            if rendered > c.maxBytesForAllRenderedCaches {
                problem("rendered caches hold \(rendered) B > \(c.maxBytesForAllRenderedCaches)")
            }
            if memory > c.maxBytesForAllMemoryCaches {
                problem("memory caches hold \(memory) B > \(c.maxBytesForAllMemoryCaches)")
            }
            if disk > c.maxBytesForAllDiskCaches {
                problem("disk caches hold \(disk) B > \(c.maxBytesForAllDiskCaches)")
            }
            if counts.0 > Int(c.maxCountForAllRenderedCaches) { problem("rendered caches hold \(counts.0) entries") }
            if counts.1 > Int(c.maxCountForAllMemoryCaches) { problem("memory caches hold \(counts.1) entries") }
            if counts.2 > Int(c.maxCountForAllDiskCaches) { problem("disk caches hold \(counts.2) entries") }
            usleep(500)
        }
    }

    /// Every pipeline's inspection sums to the global totals, the disk files match the entries, and every
    /// cached full-size image decodes to exactly the original.
    private func checkCaches(pipelines: [ImagePipeline], images: [StressImages.Image], server: TIPImageServer) {
        var inMemory: Int64 = 0
        var onDisk: Int64 = 0
        for pipeline in pipelines {
            let done = DispatchSemaphore(value: 0)
            let box = Locked<ImagePipelineInspectionResult?>(nil)
            pipeline.inspect { result in
                box.withLock { $0 = result }; done.signal()
            }
            done.wait()
            guard let inspection = box.withLock({ $0 }) else { continue }
            inMemory += inspection.inMemoryBytesUsed
            onDisk += inspection.onDiskBytesUsed
        }
        let memoryTotals = configuration.totalBytesForAllRenderedCaches + configuration.totalBytesForAllMemoryCaches
        if inMemory != memoryTotals {
            problem("inspections hold \(inMemory) B in memory, the totals say \(memoryTotals)")
        }
        if onDisk != configuration.totalBytesForAllDiskCaches {
            problem("inspections hold \(onDisk) B on disk, the totals say \(configuration.totalBytesForAllDiskCaches)")
        }
        var checked = 0
        for pipeline in pipelines {
            for image in images {
                let done = DispatchSemaphore(value: 0)
                let box = Locked<ImageFetchResult?>(nil)
                var request = GenericImageFetchRequest(imageURL: server.url(for: image.path))
                request.loadingSources = [.memoryCache, .diskCache]
                pipeline.fetchImage(
                    with: pipeline.operation(with: request) { result, _ in
                        box.withLock { $0 = result }; done.signal()
                    })
                done.wait()
                guard let cached = box.withLock({ $0 })?.imageContainer.image else { continue }
                checked += 1
                if cached.width != image.width || cached.height != image.height || cached != image.decoded {
                    problem(
                        """
                        \(pipeline.identifier) serves a wrong image for \(image.path) from \
                        \(String(describing: box.withLock { $0 }?.imageSource))
                        """
                    )
                }
            }
        }
        locked { $0.report.cachedImagesChecked = checked }
    }
}

/// A weak reference, for the leak checks.
private final class WeakBox<T: AnyObject>: @unchecked Sendable {  // `value` is only read after the run
    weak var value: T?
    init(_ value: T) { self.value = value }
}
