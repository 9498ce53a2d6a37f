import ArgumentParser
import Foundation
import TIP

/// `tip-sample inspect`: what every pipeline's caches hold under a caches root, as a table or an HTML page.
struct InspectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract:
            "Inspect the caches of every image pipeline under a caches root (a table, or an HTML page with thumbnails)."
    )

    @Option(help: "Caches root directory (default: TIP's, $XDG_CACHE_HOME or ~/.cache).")
    var root: String?

    @Option(help: "Write a self-contained HTML page with thumbnails to this file instead of printing a table.")
    var html: String?

    func run() async throws {
        let config = GlobalConfiguration.shared
        config.callbackQueue = DispatchQueue(label: "tip-sample.inspect")
        if let root {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
                var err = StandardError()
                print("error: \(root) is not a directory", to: &err)
                throw ExitCode(2)
            }
            config.cachesRootDirectory = URL(fileURLWithPath: root, isDirectory: true)
        }
        let identifiers = await withCheckedContinuation { continuation in
            ImagePipeline.getKnownImagePipelineIdentifiers { continuation.resume(returning: $0) }
        }
        // Standing a pipeline up loads its disk cache; inspecting then lists every entry.
        let pipelines = identifiers.sorted().compactMap { ImagePipeline(identifier: $0) }
        let results = await Self.inspectLoaded(pipelines, root: config.cachesRootDirectory)
        let ordered = results.values.sorted { $0.imagePipelineIdentifier < $1.imagePipelineIdentifier }
        if let html {
            let page = InspectionReport.html(ordered, root: config.cachesRootDirectory.path) {
                identifier, entryIdentifier in
                pipelines.first { $0.identifier == identifier }.map {
                    InspectionReport.diskFile(of: entryIdentifier, in: $0)
                } ?? nil
            }
            do {
                try page.write(toFile: html, atomically: true, encoding: .utf8)
            } catch {
                var err = StandardError()
                print("error: cannot write \(html): \(error.localizedDescription)", to: &err)
                throw ExitCode(1)
            }
            print("wrote \(html): \(ordered.count) pipelines")
        } else {
            print(InspectionReport.table(ordered, root: config.cachesRootDirectory.path))
        }
        withExtendedLifetime(pipelines) {}
    }

    /// Inspects every live pipeline once their disk caches have loaded. TIP reports no disk entries while a
    /// cache is still reading its directory, and says nothing when it is done, so this inspects again (every
    /// 20 ms, for at most 3 s) while a pipeline whose directory holds files shows none.
    static func inspectLoaded(_ pipelines: [ImagePipeline], root: URL) async -> [String: ImagePipelineInspectionResult]
    {
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(3)
        while true {
            let results = await withCheckedContinuation { continuation in
                GlobalConfiguration.shared.inspect { continuation.resume(returning: $0) }
            }
            let loading = pipelines.contains { pipeline in
                let disk =
                    results[pipeline.identifier].map { $0.completeDiskEntries.count + $0.partialDiskEntries.count } ?? 0
                let directory = root.appendingPathComponent(ImagePipeline.directoryName).appendingPathComponent(
                    pipeline.identifier)
                let files =
                    (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.filter {
                        !$0.hasPrefix(".")
                    } ?? []
                return disk == 0 && !files.isEmpty
            }
            if !loading || clock.now >= deadline { return results }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
