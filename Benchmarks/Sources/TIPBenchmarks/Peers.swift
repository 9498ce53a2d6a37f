import Foundation

/// Runs `peers.py` (Pillow, pyvips) on the same files in the same run and returns its timings.
enum Peers {
    static func run(thumbnailJPEG: String?, png: String?) -> [String: Samples] {
        var arguments: [String] = []
        if let thumbnailJPEG { arguments += ["--thumbnail-jpeg", thumbnailJPEG] }
        if let png { arguments += ["--png", png] }
        return run(arguments: arguments)
    }

    /// The `Benchmarks` directory, where the Python scripts live.
    static var scriptsDirectory: URL {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // Peers.swift, TIPBenchmarks, Sources
        return url
    }

    /// The first `python3` on `PATH`, or nil.
    static let python: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        .map { "\($0)/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs `peers.py` with `arguments` (after `--iterations`) and returns its timings by name.
    static func run(arguments scriptArguments: [String]) -> [String: Samples] {
        runWithCPU(arguments: scriptArguments).wall
    }

    /// ``run(arguments:)``, with each peer's median process CPU time of one run (all threads) as well.
    static func runWithCPU(arguments scriptArguments: [String]) -> (wall: [String: Samples], cpu: [String: Double]) {
        let script = scriptsDirectory.appendingPathComponent("peers.py").path
        let arguments = [script, "--iterations", String(Harness.iterations)] + scriptArguments
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        do {
            try process.run()
        } catch {
            print("note: could not run peers.py (\(error)); peer rows skipped")
            return ([:], [:])
        }
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard let json = try? JSONSerialization.jsonObject(with: output) as? [String: [String: Double]] else {
            print("note: peers.py printed no results; peer rows skipped")
            return ([:], [:])
        }
        var results: [String: Samples] = [:], cpu: [String: Double] = [:]
        for (name, values) in json {
            if let median = values["median"], let min = values["min"], let max = values["max"] {
                results[name] = Samples(median: median, min: min, max: max)
            }
            cpu[name] = values["cpu"]
        }
        return (results, cpu)
    }
}
