import ArgumentParser
import Foundation
import TIP
import TIPImageServer

/// `tip-sample fetch` (the default command): serves a corpus on loopback, fetches it through several pipelines
/// with repeats, and reports what the caches, the downloads and the server did.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch a corpus through image pipelines from an embedded server and summarize what happened.",
        discussion: """
            Without --images or --base-url, a corpus of --unique images (baseline and progressive JPEG, PNG, \
            animated GIF, each with a quarter-size thumbnail variant) is generated and served on 127.0.0.1, and \
            every final image is checked against its true dimensions and frame count. browse drives its fetches \
            through ImageFetchHelper by default: a small virtual list of --concurrency display tiles that appear, \
            show previews, scans and final images, scroll away and are reused. Exits non-zero when fetches failed \
            that the scenario did not expect to fail, or when a final image does not match.
            """
    )

    @Option(
        help:
            """
            browse: thumbnails, then full-size views showing them as previews; flaky: dropped downloads resume; \
            slow: throttled, progressive scans and first frames early; churn: random cancellations and priority \
            changes; list: every image once, in order, at --size (cycling when --count is larger).
            """
    )
    var scenario: Scenario = .browse

    @Option(
        help:
            """
            The fetch API: an ImageFetchDelegate, a completion block, async/await, or ImageFetchHelper display \
            tiles (default: helper for browse, delegate otherwise).
            """
    )
    var api: FetchAPI?

    @Option(help: "Distinct images in the generated corpus.")
    var unique: Int = 24

    @Option(help: "Serve the image files of this directory instead of a generated corpus.")
    var images: String?

    @Option(
        help:
            """
            Fetch from this existing server instead of the embedded one (paths of the generated corpus, or of \
            --images).
            """
    )
    var baseURL: String?

    @Option(help: "Also write the generated corpus into this directory (to serve it elsewhere).")
    var corpusOut: String?

    @Option(help: "Image pipelines to fetch through (an image always goes through the same one).")
    var pipelines: Int = 2

    @Option(help: "Fetches in total.")
    var count: Int = 200

    @Option(help: "Fetches in flight at once.")
    var concurrency: Int = 8

    @Option(help: "Target size of thumbnails (and of every fetch but browse's full-size views), WxH pixels.")
    var size: SizeArgument = SizeArgument(argument: "150x150")!

    @Option(
        name: .customLong("process"),
        help: ArgumentHelp(
            """
            Apply a processor to every fetched image (repeatable, applied in order): \(ProcessorArgument.names). \
            crop and fit work to --size.
            """,
            valueName: "name"))
    var processors: [ProcessorArgument] = []

    @Option(help: "Caches root directory (default: a new temporary directory; reuse it for warm disk caches).")
    var root: String?

    @Option(help: "Budget of all rendered-image caches, in MB (default: TIP's).")
    var renderedBudgetMb: Double?

    @Option(help: "Budget of all encoded-data memory caches, in MB (default: TIP's).")
    var memoryBudgetMb: Double?

    @Option(help: "Budget of all disk caches, in MB (default: TIP's).")
    var diskBudgetMb: Double?

    @Option(help: "Seed of the run plan (which images, in which order, what churn does).")
    var seed: UInt64 = 1

    @Option(
        help: "Port of the embedded server (default: the one the last run with this --root used, else any free port).")
    var port: Int?

    @Flag(
        help:
            """
            Also keep every scaled or processed image in the disk cache and read it back first \
            (ImageFetchOptions.storeProcessedImageToDiskCache): a warm run with the same --root decodes thumbnails, \
            not the originals.
            """)
    var storeThumbnails = false

    @Option(help: "Write a grid of the fetched thumbnails to this PNG file.")
    var contactSheet: String?

    @Option(
        help:
            """
            The embedded server sends Cache-Control: max-age=SECONDS with every image (0: every reuse is \
            revalidated, a 304 when unchanged; default: no caching headers, fresh for TIP's TTL).
            """
    )
    var maxAge: Int?

    @Flag(help: "Print the summary as one JSON object.")
    var json = false

    @Flag(help: "No progress on stderr.")
    var quiet = false

    /// The API the run uses: `--api`, else the scenario's default.
    var fetchAPI: FetchAPI { api ?? FetchAPI.defaultAPI(for: scenario) }

    /// The largest budget option, in MB (1 PiB): its bytes still fit an `Int64`.
    static let largestBudgetMb = Double(1 << 30)

    func validate() throws {
        guard unique >= 1 else { throw ValidationError("--unique must be at least 1") }
        guard count >= 0 else { throw ValidationError("--count must not be negative") }
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        guard (1...64).contains(pipelines) else { throw ValidationError("--pipelines must be between 1 and 64") }
        if let port, !(1...65535).contains(port) { throw ValidationError("--port must be between 1 and 65535") }
        if let maxAge, maxAge < 0 { throw ValidationError("--max-age must not be negative") }
        for budget in [renderedBudgetMb, memoryBudgetMb, diskBudgetMb].compactMap({ $0 })
        where !(0...Self.largestBudgetMb).contains(budget) {
            throw ValidationError("budgets must be numbers of MB from 0 to \(Int(Self.largestBudgetMb))")
        }
        if let baseURL, URL(string: baseURL)?.scheme == nil {
            throw ValidationError("--base-url needs a URL such as http://host:port/")
        }
    }

    func run() async throws {
        var err = StandardError()
        let queue = DispatchQueue(label: "tip-sample.callbacks")
        let rootURL =
            root.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent(
                "tip-sample-\(UUID().uuidString.prefix(8))", isDirectory: true)
        let problems = ProblemPrinter()
        configureGlobals(queue: queue, root: rootURL, problems: problems)

        let corpus = try makeCorpus(&err)
        guard !corpus.images.isEmpty else {
            print("error: no images to fetch", to: &err)
            throw ExitCode(2)
        }
        // The disk caches key entries by URL too: a run on the same root reuses the last run's port when it can.
        let portFile = rootURL.appendingPathComponent("tip-sample-server-port")
        let lastPort = (try? String(contentsOf: portFile, encoding: .utf8)).flatMap {
            Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        let setup = try await SampleServerSetup(
            scenario: scenario, corpus: corpus, directory: images, baseURL: baseURL,
            preferredPort: port ?? lastPort, maxAge: maxAge)
        if let port, let server = setup.server, server.port != port {
            print("warning: port \(port) is taken; the embedded server listens on \(server.port)", to: &err)
        }
        if let server = setup.server {
            try? FileManager.default.createDirectory(at: rootURL, withIntermediateDirectories: true)
            try? String(server.port).write(to: portFile, atomically: true, encoding: .utf8)
        }
        let pipelineList = try (0..<pipelines).map { index in
            guard let pipeline = ImagePipeline(identifier: "tip-sample-\(index)") else {
                throw SampleError("cannot make pipeline tip-sample-\(index)")
            }
            return pipeline
        }
        let plan = FetchPlan.make(
            scenario: scenario, corpus: corpus, baseURL: setup.baseURL, count: count,
            concurrency: concurrency, size: size.dimensions, pipelineCount: pipelines, seed: seed
        )
        .applying(processors, size: size.dimensions, options: storeThumbnails ? [.storeProcessedImageToDiskCache] : [])
        let sheet = contactSheet.map { _ in ContactSheet() }
        let phaseDidEnd: @Sendable (Int) -> Void = { phase in
            if phase == 0 { setup.clearFaults() }
        }
        var keepThumbnail: (@Sendable (FetchJob, ImageFetchResult) -> Void)?
        if let sheet {
            keepThumbnail = { job, result in sheet.add(identifier: job.image.identifier, image: result.imageContainer) }
        }
        let runner = FetchRunner(
            queue: queue, plan: plan, pipelines: pipelineList, driver: fetchAPI.makeDriver(callbackQueue: queue),
            concurrency: concurrency, phaseDidEnd: phaseDidEnd, keepThumbnail: keepThumbnail)
        let progress: ProgressReporter? =
            quiet ? nil : ProgressReporter(queue: queue, total: count, read: { runner.snapshot })

        let clock = ContinuousClock()
        let start = clock.now
        progress?.start()
        let stats = await runner.run()
        progress?.stop()
        let wall = clock.now - start
        await setup.stop()

        var summary = await summarize(stats, setup: setup, wall: wall, root: rootURL)
        summary.uniqueURLs = Set(plan.phases.joined().map(\.url)).count
        summary.problems = problems.count
        print(json ? summary.json() : summary.render())
        for issue in stats.problems { print("fetch issue: \(issue)", to: &err) }
        if let contactSheet, let sheet {
            do {
                try sheet.write(to: contactSheet)
            } catch {
                print("error: contact sheet: \(error)", to: &err)
                throw ExitCode(1)
            }
        }
        withExtendedLifetime(pipelineList) {}
        if stats.mismatches > 0 || stats.unexpectedFailures(scenario) > 0 { throw ExitCode(1) }
        // The run did not exercise the disk caches it was asked to use.
        if problems.saw(.diskCacheDirectoryUnusable) {
            print("error: the disk caches under \(rootURL.path) could not be used (problems above)", to: &err)
            throw ExitCode(1)
        }
    }

    private func configureGlobals(queue: DispatchQueue, root: URL, problems: ProblemPrinter) {
        let config = GlobalConfiguration.shared
        config.problemObserver = problems
        config.callbackQueue = queue
        config.cachesRootDirectory = root
        let megabyte = 1_048_576.0
        if let renderedBudgetMb { config.maxBytesForAllRenderedCaches = Int64(renderedBudgetMb * megabyte) }
        if let memoryBudgetMb { config.maxBytesForAllMemoryCaches = Int64(memoryBudgetMb * megabyte) }
        if let diskBudgetMb { config.maxBytesForAllDiskCaches = Int64(diskBudgetMb * megabyte) }
    }

    private func makeCorpus(_ err: inout StandardError) throws -> SampleCorpus {
        if let images {
            do {
                return try SampleCorpus.files(in: URL(fileURLWithPath: images, isDirectory: true))
            } catch {
                print("error: cannot read \(images): \(error.localizedDescription)", to: &err)
                throw ExitCode(2)
            }
        }
        let clock = ContinuousClock()
        let start = clock.now
        let corpus = try SampleCorpus.generate(count: unique)
        if !quiet {
            print(
                "corpus: \(corpus.images.count) images, "
                    + "\(RunSummary.bytes(corpus.files.values.reduce(0) { $0 + $1.count })), "
                    + "generated in \(clock.now - start)", to: &err)
        }
        if let corpusOut { try corpus.write(to: URL(fileURLWithPath: corpusOut, isDirectory: true)) }
        return corpus
    }

    private func summarize(_ stats: FetchStats, setup: SampleServerSetup, wall: Duration, root: URL) async -> RunSummary
    {
        let config = GlobalConfiguration.shared
        // Inspecting waits behind the disk caches' queued writes, so the totals include them.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            config.inspect { _ in continuation.resume() }
        }
        let requests = setup.requests
        var summary = RunSummary(
            scenario: scenario, api: fetchAPI, stats: stats, fetches: count,
            serverRequests: requests?.count,
            bytesDownloaded: requests?.reduce(0) { $0 + $1.bytesSent },
            wallSeconds: Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18,
            peakRSSMegabytes: ProcessMemory.peakResidentMegabytes,
            cacheBytes: [
                config.totalBytesForAllRenderedCaches, config.totalBytesForAllMemoryCaches,
                config.totalBytesForAllDiskCaches,
            ],
            budgets: [
                config.maxBytesForAllRenderedCaches, config.maxBytesForAllMemoryCaches, config.maxBytesForAllDiskCaches,
            ],
            root: root.path)
        summary.completedRequests = requests?.filter { $0.isComplete && [200, 206].contains($0.status) }.count
        return summary
    }
}
