import Foundation

/// The main job of the README's benchmarks: 300 web images (baseline and progressive JPEG 640-2048 px,
/// some PNG; about 50 MB) fetched from nginx on loopback into thumbnails that fit 200x200, 8 in flight, each
/// side as its own process measured with `wait4` (user + system CPU, wall time, peak RSS):
/// - ours: `tip-sample fetch --scenario list --api async` (the sample's async API, TIP's default configuration),
///   cold (a fresh caches root) and warm (a second process on the same root: every image from the disk cache);
///   and the same pair with `--store-thumbnails` (`ImageFetchOptions.storeProcessedImageToDiskCache`: the disk
///   cache keeps each 200x200 thumbnail too, so the warm run decodes thumbnails instead of the originals);
/// - the peers a Linux user would write instead (`mainjob_peer.py`): 8 Python threads doing `http.client` +
///   Pillow `draft` + `thumbnail`, or + pyvips `thumbnail_buffer`. They have no cache: their one run is compared
///   with both of ours.
/// Ratios are against the better peer for each measure. The corpus is generated once by `mainjob_corpus.py`
/// (from the shared fixtures' photos when present, else procedural) into `Benchmarks/.build-mainjob/`.
enum MainJobBenchmarks {
    static let size = 200
    static let concurrency = 8

    static func run() throws {
        guard let python = Peers.python else {
            throw BenchmarkFailure("python3 is needed for the main job's corpus and peers")
        }
        let corpus = try makeCorpus(python: python)
        let names = try String(contentsOf: corpus.appendingPathComponent("list.txt"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        let bytes = names.reduce(0) { total, name in
            total
                + (((try? FileManager.default.attributesOfItem(atPath: corpus.appendingPathComponent(name).path))?[
                    .size] as? Int) ?? 0)
        }
        let sample = try sampleExecutable()
        let nginx = try BenchmarkNginx(serving: corpus)
        defer { nginx.stop() }
        let scripts = Peers.scriptsDirectory
        let peerList = corpus.appendingPathComponent("list.txt").path
        print(
            "note: main job: \(names.count) images (\(names.filter { $0.hasSuffix(".png") }.count) PNG), "
                + "\(bytes / 1_000_000) MB, "
                + "from nginx at \(nginx.baseURL.absoluteString) to fit \(size)x\(size), \(concurrency) in flight; "
                + "each run is a process (wait4)"
        )

        // Every run's caches root stays until the suite ends (about 1 GB), as every group's does: deleting a root's
        // files between runs made the next runs' file creations slower (see `Harness.removeAtExit`).
        let roots = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tip-bench-mainjob-\(UUID().uuidString)", isDirectory: true)
        defer { Harness.removeAtExit(roots) }
        func tip(root: URL, source: String, storingThumbnails: Bool = false) throws -> ChildProcess.Usage {
            let usage = try ChildProcess.run(
                [
                    sample.path, "fetch", "--scenario", "list", "--api", "async", "--images", corpus.path,
                    "--base-url", nginx.baseURL.absoluteString, "--count", String(names.count),
                    "--size", "\(size)x\(size)", "--concurrency", String(concurrency), "--pipelines", "1",
                    "--root", root.path, "--json", "--quiet",
                ] + (storingThumbnails ? ["--store-thumbnails"] : []))
            try checkSample(usage, expected: names.count, source: source)
            return usage
        }
        func peer(_ engine: String) throws -> ChildProcess.Usage {
            let usage = try ChildProcess.run([
                python, scripts.appendingPathComponent("mainjob_peer.py").path, engine,
                nginx.baseURL.absoluteString, peerList, "--threads", String(concurrency), "--size", String(size),
            ])
            guard usage.status == 0, usage.output.hasPrefix("\(engine) \(names.count) 0") else {
                throw BenchmarkFailure("the \(engine) peer failed (status \(usage.status)): \(usage.output)")
            }
            return usage
        }
        let hasPyvips = ChildProcess.canImport("pyvips", python: python)
        var cold: [ChildProcess.Usage] = [], warm: [ChildProcess.Usage] = []
        var storingCold: [ChildProcess.Usage] = [], storingWarm: [ChildProcess.Usage] = []
        var pillow: [ChildProcess.Usage] = [], pyvips: [ChildProcess.Usage] = []
        // One warm-up round, then the measured rounds; the six runs of a round follow each other, so the
        // machine's drift hits them alike.
        for round in 0...Harness.iterations {
            let root = roots.appendingPathComponent("\(round)", isDirectory: true)
            let c = try tip(root: root, source: "network")
            let w = try tip(root: root, source: "disk")
            let p = try peer("pillow")
            let storing = roots.appendingPathComponent("\(round)-thumbnails", isDirectory: true)
            let sc = try tip(root: storing, source: "network", storingThumbnails: true)
            let sw = try tip(root: storing, source: "disk", storingThumbnails: true)
            let v = hasPyvips ? try peer("pyvips") : nil
            guard round > 0 else { continue }
            cold.append(c)
            warm.append(w)
            storingCold.append(sc)
            storingWarm.append(sw)
            pillow.append(p)
            if let v { pyvips.append(v) }
        }
        report(
            cold: cold, warm: warm, storing: (storingCold, storingWarm),
            peers: [("Pillow", pillow), ("pyvips", pyvips)].filter { !$0.1.isEmpty })
    }

    private static func report(
        cold: [ChildProcess.Usage], warm: [ChildProcess.Usage],
        storing: (cold: [ChildProcess.Usage], warm: [ChildProcess.Usage]), peers: [(String, [ChildProcess.Usage])]
    ) {
        func samples(_ runs: [ChildProcess.Usage], _ value: (ChildProcess.Usage) -> Double) -> Samples {
            Samples(runs.map(value))
        }
        let cpu: (ChildProcess.Usage) -> Double = { $0.cpuMilliseconds }
        let wall: (ChildProcess.Usage) -> Double = { $0.wallMilliseconds }
        let rss: (ChildProcess.Usage) -> Double = { $0.peakMegabytes }
        /// The peer with the lowest median of `value`, its name and samples.
        func best(_ value: @escaping (ChildProcess.Usage) -> Double) -> (name: String, samples: Samples) {
            let all = peers.map { (name: $0.0, samples: samples($0.1, value)) }
            return all.min { $0.samples.median < $1.samples.median } ?? ("none", Samples([1]))
        }
        let peerSummary = peers.map { name, runs in
            "\(name) CPU \(Harness.format(samples(runs, cpu).median, digits: 0)) ms, wall "
                + "\(Harness.format(samples(runs, wall).median, digits: 0)) ms, "
                + "peak RSS \(Harness.format(samples(runs, rss).median, digits: 1)) MB"
        }.joined(separator: "; ")
        let bestCPU = best(cpu), bestWall = best(wall), bestRSS = best(rss)
        Harness.report(
            "main job, 300 web images from nginx to 200x200, cold caches: CPU (user + sys)", ours: samples(cold, cpu),
            baselineName: "\(bestCPU.name) in 8 threads (the lower CPU)", baseline: bestCPU.samples, target: 0.5,
            note: peerSummary)
        Harness.report(
            "main job, cold: wall time", ours: samples(cold, wall),
            baselineName: "\(bestWall.name) in 8 threads (the faster)", baseline: bestWall.samples, target: 1.0,
            note: "the target is ≤ 0.5")
        Harness.report(
            "main job, warm (second process, every image from the disk cache): CPU (user + sys)",
            ours: samples(warm, cpu),
            baselineName: "\(bestCPU.name) in 8 threads (no cache)", baseline: bestCPU.samples, target: 0.3)
        Harness.report(
            "main job, warm: wall time", ours: samples(warm, wall),
            baselineName: "\(bestWall.name) in 8 threads (no cache)", baseline: bestWall.samples, target: nil)
        let allowance = Samples(samples(peers.first { $0.0 == bestRSS.name }?.1 ?? [], rss).values.map { $0 + 64 })
        Harness.report(
            "main job, cold: peak RSS", ours: samples(cold, rss),
            baselineName: "\(bestRSS.name)'s peak + 64 MB", baseline: allowance, target: 1.0,
            note: "warm peak RSS \(Harness.format(samples(warm, rss).median, digits: 1)) MB", unit: "MB")
        Harness.report(
            "main job with --store-thumbnails, cold: CPU (user + sys)", ours: samples(storing.cold, cpu),
            baselineName: "\(bestCPU.name) in 8 threads", baseline: bestCPU.samples, target: 0.5,
            note:
                "the default configuration's cold CPU is the row above; this one also encodes and writes each thumbnail"
        )
        Harness.report(
            "main job with --store-thumbnails, warm (every thumbnail from the disk cache): CPU (user + sys)",
            ours: samples(storing.warm, cpu),
            baselineName: "\(bestCPU.name) in 8 threads (no cache)", baseline: bestCPU.samples, target: 0.3)
        Harness.report(
            "main job with --store-thumbnails, warm: wall time", ours: samples(storing.warm, wall),
            baselineName: "\(bestWall.name) in 8 threads (no cache)", baseline: bestWall.samples, target: nil,
            note: "cold wall time \(Harness.format(samples(storing.cold, wall).median, digits: 0)) ms, cold peak RSS "
                + "\(Harness.format(samples(storing.cold, rss).median, digits: 1)) MB")
    }

    /// Checks the sample's JSON summary: every image fetched from `source`, nothing failed or mismatched.
    private static func checkSample(_ usage: ChildProcess.Usage, expected: Int, source: String) throws {
        guard usage.status == 0,
            let json = try? JSONSerialization.jsonObject(with: Data(usage.output.utf8)) as? [String: Any],
            let succeeded = json["succeeded"] as? Int, let sources = json["by_source"] as? [String: Int]
        else {
            throw BenchmarkFailure("tip-sample failed (status \(usage.status)): \(usage.output.suffix(600))")
        }
        guard succeeded == expected, sources[source] == expected, (json["mismatches"] as? Int) == 0 else {
            throw BenchmarkFailure(
                "tip-sample fetched \(succeeded) of \(expected), by source \(sources) (expected all from \(source))")
        }
    }

    /// The release `tip-sample`: `TIP_SAMPLE_EXECUTABLE` (set by `Benchmarks/run`, which builds it in the root
    /// package), else one next to this executable.
    private static func sampleExecutable() throws -> URL {
        let sample: URL
        if let path = ProcessInfo.processInfo.environment["TIP_SAMPLE_EXECUTABLE"], !path.isEmpty {
            sample = URL(fileURLWithPath: path)
        } else {
            let executable =
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                ?? CommandLine.arguments[0]
            sample = URL(fileURLWithPath: executable).deletingLastPathComponent().appendingPathComponent("tip-sample")
        }
        guard FileManager.default.isExecutableFile(atPath: sample.path) else {
            throw BenchmarkFailure(
                "\(sample.path) is missing: Benchmarks/run builds it "
                    + "(swift build -c release --package-path .. --product tip-sample)")
        }
        return sample
    }

    /// The corpus directory, generated on first use and kept (keyed by the generator script's contents).
    private static func makeCorpus(python: String) throws -> URL {
        let script = Peers.scriptsDirectory.appendingPathComponent("mainjob_corpus.py")
        let source = try Data(contentsOf: script)
        // FNV-1a of the script: a changed generator makes a new corpus.
        let key = source.reduce(UInt64(0xcbf2_9ce4_8422_2325)) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
        let kind = Inputs.fixtures == nil ? "procedural" : "photos"
        let directory = Peers.scriptsDirectory.appendingPathComponent(
            ".build-mainjob/corpus-\(kind)-\(String(key, radix: 16))", isDirectory: true)
        if FileManager.default.fileExists(atPath: directory.appendingPathComponent("list.txt").path) {
            return directory
        }
        print("note: generating the main job's corpus into \(directory.path) (once; about a minute)")
        let partial = directory.deletingLastPathComponent().appendingPathComponent(
            "partial-\(UUID().uuidString)", isDirectory: true)
        var arguments = [python, script.path, partial.path]
        if let fixtures = Inputs.fixtures {
            arguments += ["--fixtures", fixtures.path]
        } else {
            print("note: no shared fixtures: the corpus is procedural")
        }
        let usage = try ChildProcess.run(arguments)
        guard usage.status == 0 else { throw BenchmarkFailure("mainjob_corpus.py failed (status \(usage.status))") }
        try? FileManager.default.removeItem(at: directory)
        try FileManager.default.moveItem(at: partial, to: directory)
        return directory
    }
}

extension ChildProcess {
    /// Whether `python` can import `module` (the peers' rows are skipped otherwise).
    static func canImport(_ module: String, python: String) -> Bool {
        (try? run([python, "-c", "import \(module)"]).status) == 0
    }
}
