import Foundation

// TIP benchmark suite: every row prints ours vs a baseline measured in the same run, and a ratio.
// Usage: TIPBenchmarks [--iterations N]
//   [--only codecs|codecs2|caches|downloads|fetches|webp|memory|fetches-network|codecs3|processing|tables|mainjob]
//   (`--only progressive-fetch` runs the progressive fetch row of `fetches` alone, for `perf record`; `--only sync-hit`
//   its synchronous rendered-cache hit row alone, for `valgrind --tool=callgrind`.)
let arguments = CommandLine.arguments
// The memory row's child process (see MemoryBenchmarks): runs alone, prints its measurements, exits.
if arguments.contains(MemoryBenchmarks.childFlag) {
    exit(MemoryBenchmarks.child(arguments: arguments))
}
// The image-table resident-memory row's child process (see ImageTableBenchmarks).
if arguments.contains(ImageTableBenchmarks.childFlag) {
    exit(ImageTableBenchmarks.child(arguments: arguments))
}
if arguments.contains(ProfileDriver.flag) {
    exit(ProfileDriver.run(arguments: arguments))
}
if let index = arguments.firstIndex(of: "--iterations"), index + 1 < arguments.count, let n = Int(arguments[index + 1]),
    n >= 1
{
    Harness.iterations = n
    if n < 7 { print("note: \(n) iterations is below the protocol's 7: a quick check, not a result") }
}
print("TIP benchmarks: release build, 1 warm-up + \(Harness.iterations) runs per measurement, medians (min–max)\n")
do {
    let only = arguments.firstIndex(of: "--only").flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
    let groups = [
        "codecs", "codecs2", "caches", "downloads", "fetches", "webp", "memory", "fetches-network", "codecs3",
        "processing", "tables", "mainjob",
        "progressive-fetch", "sync-hit",
    ]
    if let only, !groups.contains(only) {
        print("unknown group \(only); one of: \(groups.joined(separator: ", "))")
        exit(2)
    }
    if only == nil || only == "codecs" { try CodecBenchmarks.run() }
    if only == nil || only == "codecs2" { try NewCodecBenchmarks.run() }
    if only == nil || only == "caches" { try CacheBenchmarks.run() }
    if only == nil || only == "downloads" { try DownloadBenchmarks.run() }
    if only == nil || only == "fetches" { try FetchBenchmarks.run() }
    if only == "progressive-fetch" { try FetchBenchmarks.progressiveFetch() }
    if only == "sync-hit" { try FetchBenchmarks.synchronousRenderedHit() }
    if only == nil || only == "webp" { try WebPBenchmarks.run() }
    if only == nil || only == "codecs3" { try OptionalCodecBenchmarks.run() }
    if only == nil || only == "fetches-network" { try NetworkFetchBenchmarks.run() }
    if only == nil || only == "memory" { try MemoryBenchmarks.run() }
    if only == nil || only == "processing" { try ProcessingBenchmarks.run() }
    if only == nil || only == "tables" { try ImageTableBenchmarks.run() }
    if only == nil || only == "mainjob" { try MainJobBenchmarks.run() }
} catch {
    print("benchmark failed: \(error)")
    Harness.removeScratch()
    exit(1)
}
Harness.removeScratch()
Harness.printSummary()
