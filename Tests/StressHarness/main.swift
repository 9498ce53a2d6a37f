// The stress executable: 10,000 fetches across 4 pipelines with random cancellation, priority changes,
// dependencies and stores (see StressRun.swift). Exit status 0 when every check held, 1 otherwise.
// Usage: TIPStressHarness [--operations N] [--pipelines N] [--seed S] [--root DIR]
// Leak check: swift build --product TIPStressHarness -c debug --sanitize=address --scratch-path .build-asan
//             && .build-asan/debug/TIPStressHarness      (LeakSanitizer reports at exit)
import Foundation
import TIP

var settings = StressSettings()
var root = FileManager.default.temporaryDirectory.appendingPathComponent(
    "tip-stress-\(ProcessInfo.processInfo.processIdentifier)")
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard let value = arguments.popFirst() else {
        FileHandle.standardError.write(Data("missing value for \(flag)\n".utf8))
        exit(2)
    }
    switch flag {
    case "--operations": settings.operations = Int(value) ?? settings.operations
    case "--pipelines": settings.pipelines = Int(value) ?? settings.pipelines
    case "--seed": settings.seed = UInt64(value) ?? settings.seed
    case "--root": root = URL(fileURLWithPath: value, isDirectory: true)
    default:
        FileHandle.standardError.write(
            Data("usage: TIPStressHarness [--operations N] [--pipelines N] [--seed S] [--root DIR]\n".utf8))
        exit(2)
    }
}
let configuration = GlobalConfiguration.shared
configuration.cachesRootDirectory = root
configuration.callbackQueue = DispatchQueue(label: "stress.callbacks")
let outcome: Int32
do {
    let report = try StressRun(configuration: configuration, settings: settings) { ImagePipeline(identifier: $0) }.run()
    // Written unbuffered: LeakSanitizer ends the process without flushing stdio.
    FileHandle.standardOutput.write(Data((report.description + "\n").utf8))
    outcome = report.problems.isEmpty ? 0 : 1
} catch {
    FileHandle.standardOutput.write(Data("stress run failed to start: \(error)\n".utf8))
    outcome = 1
}
try? FileManager.default.removeItem(at: root)
exit(outcome)
