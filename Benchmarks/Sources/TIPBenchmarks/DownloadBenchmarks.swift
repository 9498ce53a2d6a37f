import Foundation
import TIPAsyncHTTPClient
import TIPImageServer

@testable import TIP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The download rows of the README's benchmark table, over loopback from the embedded image server (in-memory images,
/// no throttle): 1,000 distinct small images through the downloader, with each shipped provider (libcurl, the
/// default on Linux, and URLSession), vs `curl --parallel` (the limit) and plain URLSession loops with the same
/// concurrency, and 100 members sharing one download vs one member alone.
/// Every run checks its bytes and the server's request log, so a broken run cannot report a good number.
enum DownloadBenchmarks {
    /// Downloads in flight, for the downloader (`maxConcurrentImagePipelineDownloadCount`) and every baseline.
    static let concurrency = 4
    static let smallImageCount = 1_000

    static func run() throws {
        let server = TIPImageServer()
        try server.start()
        defer { server.stop() }
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tip-bench-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { Harness.removeAtExit(root) }
        try manySmallImages(server: server, root: root)
        try oneURLManyMembers(server: server, root: root)
    }

    // MARK: 1,000 small images

    static func manySmallImages(server: TIPImageServer, root: URL) throws {
        // Distinct images: the size changes with the index (40 widths x 25 heights).
        var sizes: [Int] = []
        var urls: [URL] = []
        for index in 0..<smallImageCount {
            let jpeg = try Inputs.generated(.jpeg, width: 200 + index % 40, height: 150 + index / 40, quality: 0.8)
            let path = "/small/\(index).jpg"
            server.setImage(jpeg, at: path)
            sizes.append(jpeg.count)
            urls.append(server.url(for: path))
        }
        let total = sizes.reduce(0, +)
        print(
            """
            note: \(smallImageCount) JPEGs, \(sizes.min() ?? 0)-\(sizes.max() ?? 0) bytes, \(total / 1024) KiB in \
            all, \(concurrency) in flight
            """
        )

        let configuration = GlobalConfiguration(
            cachesRootDirectory: root.appendingPathComponent("many", isDirectory: true))
        configuration.maxConcurrentImagePipelineDownloadCount = concurrency
        configuration.maxBytesForAllDiskCaches = 1 << 36
        configuration.maxCountForAllDiskCaches = 0
        let memberQueue = DispatchQueue(label: "tip-bench.download-members")
        let curlProvider = CurlImageFetchDownloadProvider()
        let urlSessionProvider = URLSessionImageFetchDownloadProvider()
        let asyncHTTPClientProvider = AsyncHTTPClientImageFetchDownloadProvider()

        /// One run through the downloader with `provider`; `pipeline` nil caches nothing.
        func downloader(_ provider: any ImageFetchDownloadProvider, pipeline: ImagePipeline?) throws {
            configuration.imageFetchDownloadProvider = provider
            let tally = DownloadTally()
            let members = urls.indices.map { index in
                BenchmarkDownloadMember(
                    ImageDownloadRequest(url: urls[index], pipeline: pipeline),
                    expectedByteCount: sizes[index], queue: memberQueue, tally: tally)
            }
            for member in members { configuration.downloader.add(member) }
            try tally.wait(expecting: members.count)
        }

        // With a pipeline: every download also streams into a disk-cache file, finalized before the completion.
        // A fresh pipeline (its own directory) per run keeps the caches cold.
        var pipelines: [ImagePipeline] = []
        for run in 0...Harness.iterations {
            guard let pipeline = ImagePipeline(identifier: "bench-many-\(run)", configuration: configuration) else {
                throw BenchmarkFailure("could not make pipeline bench-many-\(run)")
            }
            pipeline.diskCache.waitUntilManifestLoaded()
            pipelines.append(pipeline)
        }
        var nextPipeline = 0

        let streaming = URLSessionDelegateLoop(concurrency: concurrency)
        defer { streaming.invalidate() }
        let loop = URLSessionLoop(concurrency: concurrency)
        let providerLoop = ProviderLoop(provider: curlProvider, concurrency: concurrency)
        let curl = try CurlLoop(
            urls: urls, expectedByteCounts: sizes, concurrency: concurrency, directory: root, toFiles: false)
        let curlToFiles = try CurlLoop(
            urls: urls, expectedByteCounts: sizes, concurrency: concurrency, directory: root, toFiles: true)
        var curlRun = 0
        // Every variant checks its bytes; each run must also make exactly one 200 request per image.
        func checked(_ what: String, _ body: @escaping () throws -> Void) -> () throws -> Void {
            {
                server.resetLog()
                try body()
                try server.checkRequestLog(expected: smallImageCount, what: what)
            }
        }
        var variants: [() throws -> Void] = [
            checked("the URLSession delegate loop") { try streaming.run(urls: urls, expectedByteCounts: sizes) },
            checked("the URLSession completion-handler loop") { try loop.run(urls: urls, expectedByteCounts: sizes) },
            checked("the downloader (libcurl provider)") { try downloader(curlProvider, pipeline: nil) },
            checked("the downloader (libcurl provider) with a pipeline") {
                try downloader(curlProvider, pipeline: pipelines[nextPipeline])
                nextPipeline += 1
            },
            checked("the downloader (URLSession provider)") { try downloader(urlSessionProvider, pipeline: nil) },
            checked("the libcurl provider alone") { try providerLoop.run(urls: urls, expectedByteCounts: sizes) },
            checked("the downloader (AsyncHTTPClient provider)") {
                try downloader(asyncHTTPClientProvider, pipeline: nil)
            },
        ]
        var names = [
            "URLSession delegate loop", "URLSession completion-handler loop", "downloader (libcurl)",
            "downloader (libcurl) + disk cache", "downloader (URLSession)", "libcurl provider alone",
            "downloader (AsyncHTTPClient)",
        ]
        if let curl, let curlToFiles {
            variants.append(checked("curl") { try curl.run() })
            names.append("curl (server only; curl is another process)")
            // Each run into a fresh directory, as the pipelines above.
            variants.append(
                checked("curl to files") {
                    try curlToFiles.run(
                        outputDirectory: root.appendingPathComponent("curl-files-\(curlRun)", isDirectory: true))
                    curlRun += 1
                })
            names.append("curl to files (server only)")
        }
        let samples = try interleaved(variants, names: names)
        let (streamingLoop, completionHandlers, ours, withCache) = (samples[0], samples[1], samples[2], samples[3])
        let (oursOnURLSession, providerAlone, oursOnAsyncHTTPClient) = (samples[4], samples[5], samples[6])
        let limit = curl == nil ? nil : samples[7]
        let limitToFiles = curl == nil ? nil : samples[8]

        let stored =
            pipelines.last.map { pipeline in
                urls.filter { pipeline.diskCache.entry(withIdentifier: $0.absoluteString)?.complete != nil }.count
            } ?? 0
        guard stored == smallImageCount else {
            throw BenchmarkFailure("the pipeline's disk cache holds \(stored) of \(smallImageCount) complete images")
        }
        pipelines.removeAll()

        let name = "\(smallImageCount) small images over loopback, \(concurrency) in flight"
        // The target is judged against the faster of the two plain URLSession loops of this run.
        let streamingName = "URLSession delegate loop, \(concurrency) in flight"
        let handlersName = "URLSession completion-handler loop, \(concurrency) in flight"
        let streamingIsFaster = streamingLoop.median <= completionHandlers.median
        let (baselineName, baseline) =
            streamingIsFaster ? (streamingName, streamingLoop) : (handlersName, completionHandlers)
        let (otherName, other) = streamingIsFaster ? (handlersName, completionHandlers) : (streamingName, streamingLoop)
        if let curl {
            let cpu = Samples(curl.childCPUMilliseconds.withLock { $0 })
            print("note: curl's own CPU per run (user + system of the child): \(Harness.format(cpu.median)) ms median")
        }
        if let limit {
            Harness.report(
                "\(name): downloader (libcurl provider), no pipeline", ours: ours,
                baselineName: "curl --parallel-max \(concurrency)",
                baseline: limit, target: 1.5, note: "the limit: one curl process, same URLs")
        }
        Harness.report(
            "\(name): downloader (libcurl provider), no pipeline", ours: ours, baselineName: baselineName,
            baseline: baseline, target: 1.0,
            note: "the faster plain URLSession loop of this run")
        Harness.report(
            "\(name): downloader (URLSession provider), no pipeline", ours: oursOnURLSession,
            baselineName: baselineName,
            baseline: baseline, target: nil, note: "information: the provider the downloader used before")
        Harness.report(
            "\(name): downloader (AsyncHTTPClient provider), no pipeline", ours: oursOnAsyncHTTPClient,
            baselineName: baselineName, baseline: baseline, target: nil,
            note: "information: the optional provider of Packages/TIPAsyncHTTPClient")
        if let limit {
            Harness.report(
                "\(name): downloader (AsyncHTTPClient provider), no pipeline", ours: oursOnAsyncHTTPClient,
                baselineName: "curl --parallel-max \(concurrency)", baseline: limit, target: nil,
                note: "information: against the limit")
        }
        Harness.report(
            "\(name): downloader (libcurl provider)", ours: ours,
            baselineName: "the downloader with the URLSession provider",
            baseline: oursOnURLSession, target: nil, note: "information")
        Harness.report(
            "\(name): downloader (URLSession provider), no pipeline", ours: oursOnURLSession, baselineName: otherName,
            baseline: other,
            target: nil, note: "information: the slower URLSession loop")
        Harness.report(
            "\(name): downloader (libcurl) + disk-cache writes", ours: withCache, baselineName: baselineName,
            baseline: baseline, target: nil,
            note: "information: each image also written to a pipeline's disk cache")
        if let limit {
            Harness.report(
                "\(name): the libcurl provider alone (no downloader)", ours: providerAlone,
                baselineName: "curl --parallel-max \(concurrency)",
                baseline: limit, target: nil, note: "information: the provider's share of the downloader's time")
            Harness.report(
                "\(name): curl --parallel-max \(concurrency) (the limit)", ours: limit, baselineName: baselineName,
                baseline: baseline, target: nil,
                note: "information: one curl process, same URLs")
        }
        if let limitToFiles {
            Harness.report(
                "\(name): downloader (libcurl) + disk-cache writes", ours: withCache,
                baselineName: "curl --parallel-max \(concurrency), one file per image", baseline: limitToFiles,
                target: nil, note: "information: curl neither fsyncs nor renames; the cache does both for crash safety")
        }
    }

    // MARK: 100 members, one URL

    static func oneURLManyMembers(server: TIPImageServer, root: URL) throws {
        let jpeg = try Inputs.generated(.jpeg, width: 2_400, height: 1_600, quality: 0.9)
        let path = "/large.jpg"
        server.setImage(jpeg, at: path)
        let url = server.url(for: path)
        let memberCount = 100
        print("note: one \(jpeg.count / 1024) KiB JPEG, \(memberCount) members at once")

        let configuration = GlobalConfiguration(
            cachesRootDirectory: root.appendingPathComponent("one", isDirectory: true))
        configuration.maxConcurrentImagePipelineDownloadCount = concurrency
        let memberQueue = DispatchQueue(label: "tip-bench.shared-download-members")

        /// `count` members for the same request (same URL, identifier, nil pipeline, hydrator and
        /// authorizer); the server must see exactly one request.
        var updatesPerMember = 0
        func members(_ count: Int, ownQueues: Bool = false) throws {
            server.resetLog()
            let tally = DownloadTally()
            let request = ImageDownloadRequest(url: url)
            let members = (0..<count).map { index in
                BenchmarkDownloadMember(
                    request, expectedByteCount: jpeg.count,
                    queue: ownQueues ? DispatchQueue(label: "tip-bench.member-\(index)") : memberQueue, tally: tally)
            }
            for member in members { configuration.downloader.add(member) }
            try tally.wait(expecting: count)
            updatesPerMember = tally.updateCount / count
            let requests = server.requestCount(for: path)
            guard requests == 1 else {
                throw BenchmarkFailure("\(count) members of one download made \(requests) requests; exactly 1 expected")
            }
        }

        let loop = URLSessionLoop(concurrency: 1)
        var fanOut = 0
        let samples = try interleaved(
            [
                {
                    try members(memberCount)
                    fanOut = updatesPerMember
                },
                { try members(1) },
                { try loop.run(urls: [url], expectedByteCounts: [jpeg.count]) },
                { try members(memberCount, ownQueues: true) },
            ],
            names: [
                "\(memberCount) members", "one member", "one URLSession task", "\(memberCount) members, own queues",
            ])
        let (ours, baseline, plain, ownQueues) = (samples[0], samples[1], samples[2], samples[3])
        Harness.report(
            "\(memberCount) concurrent members for one \(jpeg.count / 1024) KiB URL", ours: ours,
            baselineName: "one member alone", baseline: baseline, target: 1.2,
            note:
                """
                exactly 1 request per run (server log); \(fanOut) updates per member, \(fanOut * memberCount) \
                member callbacks
                """
        )
        Harness.report(
            "\(memberCount) concurrent members for one \(jpeg.count / 1024) KiB URL, each on its own queue",
            ours: ownQueues,
            baselineName: "one member alone", baseline: baseline, target: nil,
            note: "information: the members above share one serial queue")
        Harness.report(
            "one member for one \(jpeg.count / 1024) KiB URL", ours: baseline,
            baselineName: "one plain URLSession data task", baseline: plain, target: nil, note: "information")
    }

    /// A variant alone, for `perf record` or `perf stat` on the process: one warm-up, then `Harness.iterations`
    /// runs (`--iterations N`; the variants that use a fresh pipeline per run have that many and one), their mean
    /// wall and process CPU time per run printed; then the process ends, as the group's rows would have nothing to
    /// compare.
    static func runAlone(_ body: () throws -> Void, name: String) throws -> Never {
        let repeats = Harness.iterations  // at least 1: main.swift takes no fewer
        try body()
        let start = DispatchTime.now().uptimeNanoseconds
        let cpuStart = Harness.cpuNanoseconds()
        for _ in 0..<repeats { try body() }
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(repeats)
        let cpu = Double(Harness.cpuNanoseconds() - cpuStart) / 1e6 / Double(repeats)
        print(
            "variant \"\(name)\" alone, \(repeats) runs after a warm-up: \(Harness.format(wall)) ms wall, "
                + "\(Harness.format(cpu)) ms process CPU per run")
        exit(0)
    }

    /// Like `Harness.measure` (one warm-up each, then `Harness.iterations` measured runs), but the variants
    /// take turns within each iteration, in a rotating order, so that the machine's drift hits them alike.
    /// With `names`, also prints each variant's median process CPU time (server included) per run.
    /// `TIP_BENCH_VARIANT=NAME` (one of `names`, as that note prints them) runs that variant alone instead, for a
    /// profiler (see `runAlone`).
    static func interleaved(_ bodies: [() throws -> Void], names: [String] = []) throws -> [Samples] {
        if let name = ProcessInfo.processInfo.environment["TIP_BENCH_VARIANT"], !name.isEmpty {
            // A group may measure several sets of variants: the others run as usual until the named one comes.
            if let index = names.firstIndex(of: name), index < bodies.count { try runAlone(bodies[index], name: name) }
            print("note: TIP_BENCH_VARIANT \"\(name)\" is not one of these variants: \(names)")
        }
        for body in bodies { try body() }
        var values = Array(repeating: [Double](), count: bodies.count)
        var cpu = Array(repeating: [Double](), count: bodies.count)
        var switches = Array(repeating: (voluntary: [Double](), involuntary: [Double]()), count: bodies.count)
        for iteration in 0..<Harness.iterations {
            for offset in bodies.indices {
                let index = (iteration + offset) % bodies.count
                let start = DispatchTime.now().uptimeNanoseconds
                let cpuStart = Harness.cpuNanoseconds()
                let switchesStart = Harness.contextSwitches()
                try bodies[index]()
                values[index].append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                cpu[index].append(Double(Harness.cpuNanoseconds() - cpuStart) / 1e6)
                let switchesEnd = Harness.contextSwitches()
                switches[index].voluntary.append(Double(switchesEnd.voluntary - switchesStart.voluntary))
                switches[index].involuntary.append(Double(switchesEnd.involuntary - switchesStart.involuntary))
            }
        }
        if names.count == bodies.count {
            let medians = zip(names, cpu).map { "\($0) \(Harness.format(Samples($1).median)) ms" }
            print(
                "note: process CPU per run (all threads, the in-process server included): "
                    + medians.joined(separator: ", "))
            let counts = zip(names, switches).map {
                "\($0) \(Harness.format(Samples($1.voluntary).median, digits: 0)) + "
                    + "\(Harness.format(Samples($1.involuntary).median, digits: 0))"
            }
            print(
                "note: context switches per run (voluntary + involuntary, all threads): "
                    + counts.joined(separator: ", "))
        }
        return values.map(Samples.init)
    }

}

/// The baseline: a plain URLSession (configured like TIP's provider: no cookies, no URL cache) running
/// completion-handler data tasks, starting the next URL as each one ends so that `concurrency` are in flight.
final class URLSessionLoop: Sendable {
    private let session: URLSession
    private let concurrency: Int

    init(concurrency: Int) {
        session = URLSessionLoop.makeSession()
        self.concurrency = concurrency
    }

    deinit { session.finishTasksAndInvalidate() }

    /// A session configured like TIP's provider: no cookies, no URL cache (every baseline loop uses one).
    static func makeSession() -> URLSession {
        let configuration = URLSessionConfiguration.default
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        return URLSession(configuration: configuration)
    }

    /// Downloads every URL once; throws unless each answered 200 with exactly its expected byte count.
    func run(urls: [URL], expectedByteCounts: [Int]) throws {
        try run(urls: urls) { index, data, status, error in
            error == nil && status == 200 && data?.count == expectedByteCounts[index]
                ? nil : "status \(status), \(data?.count ?? 0) bytes, error \(String(describing: error))"
        }
    }

    /// Fetches every URL once with `concurrency` in flight. `problem` looks at each answer (on `queue` when
    /// given, else on the session's queue) and says what is wrong with it (nil: nothing); the next URL starts
    /// once it returned. Throws unless every answer passed.
    func run(
        urls: [URL], on queue: DispatchQueue? = nil,
        problem: @escaping @Sendable (_ index: Int, _ data: Data?, _ status: Int, _ error: (any Error)?) -> String?
    ) throws {
        let tally = DownloadTally()
        for _ in urls { tally.enter() }
        let next = Locked(0)
        let session = self.session
        @Sendable func startNext() {
            let index = next.withLock { value in
                defer { value += 1 }; return value
            }
            guard index < urls.count else { return }
            session.dataTask(with: urls[index]) { data, response, error in
                let status = (response as? HTTPURLResponse)?.statusCode ?? 0
                @Sendable func judge() {
                    if let problem = problem(index, data, status, error) {
                        tally.failed("\(urls[index].path): \(problem)")
                    } else {
                        tally.succeeded()
                    }
                    startNext()
                }
                if let queue { queue.async(execute: judge) } else { judge() }
            }.resume()
        }
        for _ in 0..<min(concurrency, urls.count) { startNext() }
        try tally.wait(expecting: urls.count)
    }
}

/// The limit: one `curl --parallel` process fetching the same URLs to /dev/null with the same concurrency.
struct CurlLoop {
    let executable: String
    let configFile: String
    let expectedSizes: [Int]
    let concurrency: Int
    /// The CPU time (user + system) of each curl run, in milliseconds: curl's own cost, which the process CPU
    /// figures of the in-process variants cannot show.
    let childCPUMilliseconds = Locked<[Double]>([])

    /// nil (with a note) when curl is not installed. `toFiles`: each image to its own file (`run(outputDirectory:)`)
    /// instead of /dev/null.
    init?(urls: [URL], expectedByteCounts: [Int], concurrency: Int, directory: URL, toFiles: Bool) throws {
        guard
            let path = ["/usr/bin/curl", "/usr/local/bin/curl", "/bin/curl"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            print("note: curl not found; its row is skipped (Benchmarks/run installs it)")
            return nil
        }
        executable = path
        let config = directory.appendingPathComponent(toFiles ? "curl-urls-files.txt" : "curl-urls.txt")
        try urls.enumerated().map { index, url in
            "url = \"\(url.absoluteString)\"\noutput = \"\(toFiles ? "\(index).jpg" : "/dev/null")\"\n"
        }.joined().write(to: config, atomically: true, encoding: .utf8)
        configFile = config.path
        expectedSizes = expectedByteCounts.sorted()
        self.concurrency = concurrency
    }

    /// One curl run (files go to `outputDirectory`, made by curl); throws unless every transfer answered 200 with
    /// the expected sizes.
    func run(outputDirectory: URL? = nil) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments =
            [
                "--silent", "--show-error", "--no-progress-meter", "--parallel", "--parallel-max", "\(concurrency)",
                "--write-out", "%{http_code} %{size_download}\\n", "--config", configFile,
            ]
            + (outputDirectory.map { ["--create-dirs", "--output-dir", $0.path] } ?? [])
        let output = Pipe()
        process.standardOutput = output
        let before = Self.childrenCPUMilliseconds()
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let spent = Self.childrenCPUMilliseconds() - before
        childCPUMilliseconds.withLock { $0.append(spent) }
        guard process.terminationStatus == 0 else {
            throw BenchmarkFailure("curl exited with \(process.terminationStatus)")
        }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        let ok = lines.allSatisfy { $0.hasPrefix("200 ") }
        let sizes = lines.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }.sorted()
        guard ok, sizes == expectedSizes else {
            throw BenchmarkFailure(
                "curl: \(lines.count) transfers, all 200: \(ok), sizes as expected: \(sizes == expectedSizes)")
        }
    }

    /// User + system time of this process's reaped children so far.
    static func childrenCPUMilliseconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        func ms(_ time: timeval) -> Double { Double(time.tv_sec) * 1000 + Double(time.tv_usec) / 1000 }
        return ms(usage.ru_utime) + ms(usage.ru_stime)
    }
}

/// The main baseline: a plain URLSession streaming through a delegate, as TIP's provider does (no cookies, no
/// URL cache, a serial delegate queue), assembling each body and starting the next URL as each one ends.
final class URLSessionDelegateLoop: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // Everything mutable is in `state`; `session` is set once in init.
    private struct State {
        var next = 0
        var urls: [URL] = []
        var expected: [Int] = []
        var bodies: [Int: (index: Int, data: Data)] = [:]
        var tally: DownloadTally?
    }

    private var session: URLSession?
    private let concurrency: Int
    private let state = Locked(State())

    init(concurrency: Int) {
        self.concurrency = concurrency
        super.init()
        let configuration = URLSessionConfiguration.default
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    /// Breaks the session → delegate cycle.
    func invalidate() { session?.finishTasksAndInvalidate() }

    /// Downloads every URL once; throws unless each answered 200 with exactly its expected byte count.
    func run(urls: [URL], expectedByteCounts: [Int]) throws {
        let tally = DownloadTally()
        for _ in urls { tally.enter() }
        state.withLock { $0 = State(urls: urls, expected: expectedByteCounts, tally: tally) }
        for _ in 0..<min(concurrency, urls.count) { startNext() }
        try tally.wait(expecting: urls.count)
    }

    private func startNext() {
        guard let session else { return }
        let next: (index: Int, url: URL)? = state.withLock { state in
            guard state.next < state.urls.count else { return nil }
            defer { state.next += 1 }
            return (state.next, state.urls[state.next])
        }
        guard let next else { return }
        let task = session.dataTask(with: next.url)
        state.withLock { $0.bodies[task.taskIdentifier] = (next.index, Data()) }
        task.resume()
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        state.withLock { $0.bodies[dataTask.taskIdentifier]?.data.append(data) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (entry, expected, tally) = state.withLock { state in
            let entry = state.bodies.removeValue(forKey: task.taskIdentifier)
            return (entry, entry.map { state.expected[$0.index] }, state.tally)
        }
        let status = (task.response as? HTTPURLResponse)?.statusCode ?? 0
        if error == nil, status == 200, let entry, entry.data.count == expected {
            tally?.succeeded()
        } else {
            tally?.failed(
                """
                task \(entry?.index ?? -1): status \(status), \(entry?.data.count ?? 0) of \(expected ?? 0) \
                bytes, error \(String(describing: error))
                """
            )
        }
        startNext()
    }
}
