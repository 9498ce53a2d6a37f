// Child process for the disk-cache crash-consistency tests (DiskCacheCrashTests): writes cache entries
// in a loop into the directory given on the command line until the test kills it with SIGKILL.
// Usage: TIPCacheCrashHarness <directory> <xattr|sidecar> <seed>
// Benchmark: TIPCacheCrashHarness --populate <directory> <xattr|sidecar> <count>
//            TIPCacheCrashHarness --measure-load <directory> <xattr|sidecar>
// Pipeline: TIPCacheCrashHarness --download <caches root> <server base URL> <image count> <seed>
//           (PipelineCrashConsistencyTests; see PipelineDownloadMode.swift)
import Foundation
import TIP
import TIPTestSupport

let arguments = CommandLine.arguments
// A writer the test kills must not outlive a test process that died first.
if arguments.count == 4 { OrphanGuard.exitWhenParentDies() }
if arguments.count == 5, arguments[1] == "--populate", let count = Int(arguments[4]) {
    DiskCacheCrashHarnessSupport.populate(directory: arguments[2], sidecar: arguments[3] == "sidecar", count: count)
    exit(0)
}
if arguments.count == 4, arguments[1] == "--measure-load" {
    let result = DiskCacheCrashHarnessSupport.measureManifestLoad(
        directory: arguments[2], sidecar: arguments[3] == "sidecar")
    print("manifest: \(result.entries) entries, \(result.bytes) bytes, loaded in \(Int(result.seconds * 1000)) ms")
    exit(0)
}
if arguments.count == 6, arguments[1] == "--download", let count = Int(arguments[4]), let seed = UInt64(arguments[5]) {
    runPipelineDownloadMode(cachesRoot: arguments[2], baseURL: arguments[3], imageCount: count, seed: seed)
}
guard arguments.count == 4, let seed = UInt64(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: TIPCacheCrashHarness <directory> <xattr|sidecar> <seed>\n".utf8))
    exit(2)
}
DiskCacheCrashHarnessSupport.run(directory: arguments[1], sidecar: arguments[2] == "sidecar", seed: seed)
