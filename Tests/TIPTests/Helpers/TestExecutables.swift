import Foundation
import Testing

@testable import TIP

/// The helper executables of the package (`swift build` builds them next to the test bundle), and running one as a
/// child process without blocking a thread of the concurrency pool.
enum TestExecutables {
    /// The executable `name` next to the test bundle, or nil when it was not built (`swift test` alone may not).
    static func url(named name: String) -> URL? {
        var candidates: [URL] = []
        if let first = CommandLine.arguments.first {
            candidates.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        candidates.append(
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug"))
        return candidates.map { $0.appendingPathComponent(name) }.first {
            FileManager.default.isExecutableFile(atPath: $0.path)
        }
    }

    /// How a child run ended.
    struct Run {
        /// The exit status; nil when the child was still running at the deadline (it was then killed).
        let status: Int32?
        let stdout: String
        let stderr: String
        /// Seconds from the start to the exit.
        let seconds: Double
    }

    /// Runs `executable` with `arguments` and `environment` (added to this process's), waiting at most `timeout`
    /// seconds with `Task.sleep` (never a blocked pool thread).
    static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:],
        timeout: TimeInterval
    ) async throws -> Run {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let start = Date()
        try process.run()
        let outData = Locked(Data()), errData = Locked(Data())
        let readers = DispatchGroup()
        for (pipe, sink) in [(out, outData), (err, errData)] {
            DispatchQueue.global().async(group: readers) {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                sink.withLock { $0 = data }
            }
        }
        let deadline = start.addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        let timedOut = process.isRunning
        if timedOut { process.terminate() }
        let seconds = Date().timeIntervalSince(start)
        process.waitUntilExit()
        readers.wait()
        return Run(
            status: timedOut ? nil : process.terminationStatus,
            stdout: String(decoding: outData.withLock { $0 }, as: UTF8.self),
            stderr: String(decoding: errData.withLock { $0 }, as: UTF8.self),
            seconds: seconds)
    }
}
