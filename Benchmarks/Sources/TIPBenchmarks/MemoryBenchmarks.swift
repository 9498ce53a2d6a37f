import Foundation
import TIPImageServer

@testable import TIP

/// The memory row of the README's benchmarks: 1,000 12-megapixel JPEGs fetched to 200 px thumbnails; the peak RSS must
/// stay within the configured rendered + memory cache budgets + 64 MB (no full-size bitmap is ever kept).
///
/// The fetches run in a child process (this executable re-run with ``childFlag``) so that the earlier rows do
/// not raise the peak: a fresh configuration with small explicit budgets, the embedded server serving 1,000
/// distinct URLs (symbolic links onto 8 generated 4000x3000 JPEGs, so every fetch is a network fetch) and
/// ImagePipeline fetch operations at 200x200 aspect-fit, ``inFlight`` at a time. The server runs in the parent
/// process, so the child's peak is the pipeline's alone (the server holds each body it sends in memory).
enum MemoryBenchmarks {
    /// The hidden flag that makes the executable run ``child(arguments:)``.
    static let childFlag = "--memory-child"
    static let imageCount = 1_000
    static let distinctFiles = 8
    static let inFlight = 8
    static let renderedBudget: Int64 = 16 << 20
    static let memoryBudget: Int64 = 32 << 20
    static let diskBudget: Int64 = 256 << 20
    static let allowance: Int64 = 64 << 20

    static func run() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tip-bench-memory-\(UUID().uuidString)", isDirectory: true)
        let served = directory.appendingPathComponent("served", isDirectory: true)
        let sources = served.appendingPathComponent("src", isDirectory: true)
        try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
        defer { Harness.removeAtExit(directory) }
        let photo = ImageContainer(image: Inputs.photo(width: 4000, height: 3000))
        var sizes: [Int] = []
        for index in 0..<distinctFiles {
            let jpeg = try CodecCatalogue.shared.encodeImage(
                photo, type: .jpeg, quality: 0.72 + Float(index) * 0.02, options: [])
            try jpeg.write(to: sources.appendingPathComponent("\(index).jpg"))
            sizes.append(jpeg.count)
        }
        for index in 0..<imageCount {
            try FileManager.default.createSymbolicLink(
                atPath: served.appendingPathComponent("\(index).jpg").path,
                withDestinationPath: "src/\(index % distinctFiles).jpg")
        }
        print(
            "note: \(distinctFiles) generated 4000x3000 JPEGs "
                + "(\(sizes.min().map { $0 / 1024 } ?? 0)-\(sizes.max().map { $0 / 1024 } ?? 0) KiB) "
                + "behind \(imageCount) distinct URLs, fetched to 200x200 fit, \(inFlight) fetches in flight, in a "
                + "child process"
        )

        let server = TIPImageServer()
        try server.start()
        defer { server.stop() }
        server.serveDirectory(served)
        let caches = directory.appendingPathComponent("caches", isDirectory: true)
        try measureChild(
            server: server, caches: caches.appendingPathComponent("default", isDirectory: true), environment: [:],
            label: "", target: 1.0)
        // Diagnostic: the same with glibc's mmap threshold fixed at its 128 KiB default (which also stops glibc
        // raising it after each freed multi-megabyte buffer). The pipeline maps its large buffers itself, so
        // this should change little.
        try measureChild(
            server: server, caches: caches.appendingPathComponent("mmap", isDirectory: true),
            environment: ["MALLOC_MMAP_THRESHOLD_": "131072"], label: ", MALLOC_MMAP_THRESHOLD_=131072", target: nil)
    }

    /// Runs the child (under `/usr/bin/time -v` when present) with `environment` added against `server`, checks
    /// that the server answered every fetch with a 200, and reports the child's peak.
    private static func measureChild(
        server: TIPImageServer, caches: URL, environment: [String: String], label: String, target: Double?
    ) throws {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let childArguments = [childFlag, server.baseURL.absoluteString, caches.path]
        server.resetLog()
        let process = Process()
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let time = "/usr/bin/time"
        if FileManager.default.isExecutableFile(atPath: time) {
            process.executableURL = URL(fileURLWithPath: time)
            process.arguments = ["-v", executable] + childArguments
        } else {
            print("note: /usr/bin/time not found; only the child's own VmHWM is reported")
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = childArguments
        }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read stderr on another thread so that neither pipe can fill up and block the child.
        let errorText = Locked(Data())
        let reader = Thread { errorText.withLock { $0 = errors.fileHandleForReading.readDataToEndOfFile() } }
        reader.start()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        while reader.isExecuting || !reader.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        let stderr = String(decoding: errorText.withLock { $0 }, as: UTF8.self)
        var values: [String: Double] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2, let value = Double(parts[1]) { values[String(parts[0])] = value }
            if line.hasPrefix("failure:") || line.hasPrefix("note:") { print(line) }
        }
        guard process.terminationStatus == 0, let peakKB = values["vmhwm_kb"] else {
            throw BenchmarkFailure(
                """
                the memory child failed (status \(process.terminationStatus)): \(text.suffix(600)) \
                \(stderr.suffix(600))
                """
            )
        }
        try server.checkRequestLog(expected: imageCount, what: "the memory child")
        let timeKB = stderr.split(separator: "\n").first { $0.contains("Maximum resident set size") }
            .flatMap { $0.split(separator: ":").last.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } }
        let mb = { (kb: Double) in kb / 1024 }
        let budgetMB = Double(renderedBudget + memoryBudget + allowance) / Double(1 << 20)
        let peak = mb(peakKB)
        func number(_ key: String, _ divisor: Double = 1) -> String {
            Harness.format((values[key] ?? -1) / divisor, digits: 1)
        }
        let timeMB: String = timeKB.map { Harness.format(mb($0), digits: 1) } ?? "n/a"
        var parts: [String] = []
        parts.append("VmHWM of the child; /usr/bin/time -v max RSS \(timeMB) MB")
        parts.append(
            "RSS before the first fetch \(number("rss_start_kb", 1024)) MB, after the last "
                + "\(number("rss_end_kb", 1024)) MB, "
                + "after malloc_trim(0) \(number("rss_trimmed_kb", 1024)) MB")
        parts.append(
            "\(Int(values["fetched"] ?? 0)) of \(imageCount) fetched from the network in \(number("seconds")) s")
        let mega = Double(1 << 20)
        parts.append(
            """
            cache totals at the end: rendered \(number("rendered_bytes", mega)) MB, memory \
            \(number("memory_bytes", mega)) MB, disk \(number("disk_bytes", mega)) MB
            """
        )
        parts.append(
            """
            highest sampled rendered + memory \(number("max_cache_bytes", mega)) MB, highest sampled RSS \
            \(number("max_rss_kb", 1024)) MB
            """
        )
        let note = parts.joined(separator: "; ")
        Harness.report(
            "fetching \(imageCount) 12-megapixel JPEGs to 200 px thumbnails: peak RSS\(label)", ours: Samples([peak]),
            baselineName: "rendered \(renderedBudget >> 20) MB + memory \(memoryBudget >> 20) MB budgets + 64 MB",
            baseline: Samples([budgetMB]), target: target, note: note, unit: "MB")
    }

    /// The child: fetches every URL under the server at `arguments[flag + 1]`, caches under `arguments[flag + 2]`,
    /// prints `key=value` lines. Returns the exit status.
    static func child(arguments: [String]) -> Int32 {
        guard let index = arguments.firstIndex(of: childFlag), index + 2 < arguments.count else { return 2 }
        guard let base = URL(string: arguments[index + 1]) else { return 2 }
        let root = URL(fileURLWithPath: arguments[index + 2], isDirectory: true)
        // An optional fourth argument fetches fewer URLs (for investigating by hand).
        let count = index + 3 < arguments.count ? Int(arguments[index + 3]) ?? imageCount : imageCount
        do {
            try childRun(base: base, root: root, count: min(count, imageCount))
            return 0
        } catch {
            print("failure: \(error)")
            return 1
        }
    }

    private static func childRun(base: URL, root: URL, count: Int) throws {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)

        let configuration = GlobalConfiguration(cachesRootDirectory: root)
        configuration.callbackQueue = DispatchQueue(label: "tip-bench.memory-callbacks")
        configuration.maxBytesForAllRenderedCaches = renderedBudget
        configuration.maxBytesForAllMemoryCaches = memoryBudget
        configuration.maxBytesForAllDiskCaches = diskBudget
        guard let pipeline = ImagePipeline(identifier: "bench-memory", configuration: configuration) else {
            throw BenchmarkFailure("could not make pipeline bench-memory")
        }
        pipeline.diskCache.waitUntilManifestLoaded()

        // A sampler: the highest RSS and rendered + memory cache total seen while fetching.
        let maxima = Locked((rss: 0, cache: Int64(0)))
        let stop = Locked(false)
        let sampler = Thread {
            while !stop.withLock({ $0 }) {
                let rss = ProcessStatus.kilobytes("VmRSS") ?? 0
                let cache = configuration.totalBytesForAllRenderedCaches + configuration.totalBytesForAllMemoryCaches
                maxima.withLock { $0 = (max($0.rss, rss), max($0.cache, cache)) }
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        let rssStart = ProcessStatus.kilobytes("VmRSS") ?? 0
        sampler.start()

        let start = DispatchTime.now().uptimeNanoseconds
        let slots = DispatchSemaphore(value: inFlight)
        let tally = DownloadTally()
        let target = CGSize(width: 200, height: 200)
        for index in 0..<count {
            slots.wait()
            tally.enter()
            let url = base.appendingPathComponent("\(index).jpg")
            let request = GenericImageFetchRequest(
                imageURL: url, identifier: nil, targetDimensions: target, targetContentMode: .scaleAspectFit)
            let operation = pipeline.operation(with: request) { result, error in
                if let result, result.imageSource == .network, result.imageContainer.image.width <= 200,
                    result.imageContainer.image.height <= 200
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
                slots.signal()
            }
            pipeline.fetchImage(with: operation)
        }
        try tally.wait(expecting: count, timeout: 900)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        stop.withLock { $0 = true }
        while !sampler.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        let (maxRSS, maxCache) = maxima.withLock { $0 }
        print("fetched=\(count)")
        print("seconds=\(seconds)")
        print("rss_start_kb=\(rssStart)")
        print("rss_end_kb=\(ProcessStatus.kilobytes("VmRSS") ?? 0)")
        print("max_rss_kb=\(maxRSS)")
        print("max_cache_bytes=\(maxCache)")
        print("rendered_bytes=\(configuration.totalBytesForAllRenderedCaches)")
        print("memory_bytes=\(configuration.totalBytesForAllMemoryCaches)")
        print("disk_bytes=\(configuration.totalBytesForAllDiskCaches)")
        print("vmhwm_kb=\(ProcessStatus.kilobytes("VmHWM") ?? 0)")
        // What glibc keeps of freed memory vs what is still live: RSS after handing free pages back.
        ProcessStatus.mallocTrim()
        print("rss_trimmed_kb=\(ProcessStatus.kilobytes("VmRSS") ?? 0)")
    }
}

/// Fields of /proc/self/status.
enum ProcessStatus {
    /// glibc's `malloc_trim(0)` (not in Swift's Glibc module; looked up at run time), when present.
    static func mallocTrim() {
        guard let symbol = dlsym(nil, "malloc_trim") else { return }
        typealias Trim = @convention(c) (Int) -> Int32
        _ = unsafeBitCast(symbol, to: Trim.self)(0)
    }

    /// The value of a kB field (`VmRSS`, `VmHWM`), or nil.
    static func kilobytes(_ field: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(
                line.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
        }
        return nil
    }
}
