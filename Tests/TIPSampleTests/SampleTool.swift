import Foundation
import Testing

/// Runs the `tip-sample` executable as a child process (each run gets its own process, so the shared
/// `GlobalConfiguration` and the peak RSS are its own).
struct SampleTool {
    /// What a run printed and how it ended.
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String

        /// stdout parsed as one JSON object.
        func json() throws -> [String: Any] {
            let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8))
            return try #require(object as? [String: Any], "stdout is not a JSON object: \(stdout)")
        }
    }

    /// The executable next to the test bundle (`swift build` builds it).
    static let executable: URL? = {
        var candidates: [URL] = []
        if let first = CommandLine.arguments.first {
            candidates.append(URL(fileURLWithPath: first).deletingLastPathComponent())
        }
        candidates.append(Bundle.main.bundleURL)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        candidates.append(
            URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug"))
        return candidates.map { $0.appendingPathComponent("tip-sample") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Runs `tip-sample` with `arguments`; fails the test after `timeout` seconds. Waits without blocking a
    /// thread of the concurrency pool (2 threads on a 2-core machine), which every other test shares.
    static func run(_ arguments: [String], timeout: TimeInterval = 240) async throws -> Run {
        let executable = try #require(
            executable, "tip-sample not found next to the test bundle: run `swift build` first")
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes while the child runs, so that neither fills up and blocks it.
        let outData = Locked(Data()), errData = Locked(Data())
        let readers = DispatchGroup()
        for (pipe, sink) in [(out, outData), (err, errData)] {
            DispatchQueue.global().async(group: readers) {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                sink.withLock { $0 = data }
            }
        }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
        if process.isRunning {
            process.terminate()
            Issue.record("tip-sample \(arguments.joined(separator: " ")) ran longer than \(timeout) s")
        }
        process.waitUntilExit()
        readers.wait()
        return Run(
            status: process.terminationStatus,
            stdout: String(decoding: outData.withLock { $0 }, as: UTF8.self),
            stderr: String(decoding: errData.withLock { $0 }, as: UTF8.self))
    }

    /// A new empty temporary directory, removed by `body`'s end.
    static func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tip-sample-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }
}

/// A small lock for the pipe readers.
final class Locked<Value>: @unchecked Sendable {
    // `value` is only touched under `lock`.
    private var value: Value
    private let lock = NSLock()

    init(_ value: Value) { self.value = value }

    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
