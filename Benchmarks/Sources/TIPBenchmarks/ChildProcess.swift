import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A command run as its own process and measured the way `/usr/bin/time` does: `posix_spawn`, then
/// `wait4` for its resource usage (user + system CPU of the process and the children it waited for, peak
/// resident set) and the wall time in between. Standard output goes to a file the caller reads.
struct ChildProcess {
    /// What one run used.
    struct Usage {
        /// User + system CPU, milliseconds.
        let cpuMilliseconds: Double
        /// Wall time from spawn to exit, milliseconds.
        let wallMilliseconds: Double
        /// Peak resident set (`ru_maxrss`), megabytes.
        let peakMegabytes: Double
        /// The exit status (-1 when killed by a signal).
        let status: Int32
        /// Everything it wrote to standard output.
        let output: String
    }

    /// Runs `arguments[0]` (a path, or a name looked up in `PATH`) with `arguments`, standard output into a
    /// temporary file, standard error inherited, and waits for it.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Usage {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tip-bench-child-\(UUID().uuidString).out"
        ).path
        defer { unlink(outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let merged = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let cArguments = arguments.map { strdup($0) } + [nil]
        let cEnvironment = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            cArguments.forEach { free($0) }
            cEnvironment.forEach { free($0) }
        }
        var pid: pid_t = 0
        let start = DispatchTime.now().uptimeNanoseconds
        let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, cArguments, cEnvironment)
        guard spawned == 0 else {
            throw BenchmarkFailure("could not start \(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchmarkFailure("wait4 failed for \(arguments[0])") }
        }
        let wall = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        func milliseconds(_ time: timeval) -> Double { Double(time.tv_sec) * 1000 + Double(time.tv_usec) / 1000 }
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WIFEXITED / WEXITSTATUS are macros: status & 0x7f == 0 means a normal exit, the code in bits 8-15.
        let exitStatus: Int32 = status & 0x7F == 0 ? (status >> 8) & 0xFF : -1
        return Usage(
            cpuMilliseconds: milliseconds(usage.ru_utime) + milliseconds(usage.ru_stime), wallMilliseconds: wall,
            peakMegabytes: Double(usage.ru_maxrss) / 1024, status: exitStatus, output: output)
    }
}
