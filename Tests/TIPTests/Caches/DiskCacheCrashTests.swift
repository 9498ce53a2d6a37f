import Foundation
import TIPTestSupport
import Testing

@testable import TIP

@Suite("Disk cache crash safety", .serialized)
struct DiskCacheCrashTests {
    /// The harness executable built next to the test bundle (`swift build` builds it; `swift test`
    /// alone may not).
    static var harness: URL? { TestExecutables.url(named: "TIPCacheCrashHarness") }

    @Test(
        "SIGKILL at random moments never leaves an entry that is served wrong; totals match the files",
        arguments: [(DiskCache.MetadataStorage.extendedAttributes, 50), (.sidecar, 30)])
    func killedWriters(storage: DiskCache.MetadataStorage, kills: Int) async throws {
        guard let harness = Self.harness else {
            print("skipped: TIPCacheCrashHarness not found next to the test bundle (run `swift build` first)")
            return
        }
        let env = DiskCacheTestEnvironment()
        let directory = env.directory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var random = SplitMix64(seed: storage == .sidecar ? 2 : 1)
        var verifiedEntries = 0
        for kill in 1...kills {
            let process = Process()
            process.executableURL = harness
            process.arguments = [
                directory.path, storage == .sidecar ? "sidecar" : "xattr", String(random.next() % 1_000_000),
            ]
            try process.run()
            // The last run lasts long enough to write entries even when the child is slow (sanitizers).
            let wait = kill == kills ? 1_500_000 : 15_000 + random.next() % 90_000
            // Task.sleep, not usleep: a blocked thread of the concurrency pool would stall the tests beside it.
            try await Task.sleep(for: .microseconds(Int64(wait)))
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(
                process.terminationReason == .uncaughtSignal,
                "the harness exited by itself: \(process.terminationStatus)")
            if kill % 10 == 0 || kill == kills {
                verifiedEntries += try verify(env, storage: storage)
            }
        }
        #expect(verifiedEntries > 0)
    }

    /// Opens a fresh cache on the harness's directory and checks every entry against the harness's pure
    /// content function. Returns the number of entries checked.
    private func verify(_ env: DiskCacheTestEnvironment, storage: DiskCache.MetadataStorage) throws -> Int {
        let cache = DiskCache(
            directory: env.directory(), domain: env.domain, configuration: env.configuration, metadataStorage: storage)
        defer { cache.tearDown() }
        cache.waitUntilManifestLoaded()
        var checked = 0
        let entries = env.domain.sync { cache.lru.entriesNewestFirst.map(\.value) }
        for entry in entries {
            if let complete = entry.complete {
                let expected = DiskCacheCrashHarnessSupport.content(for: complete.metadata.url)
                #expect(
                    cache.data(of: complete) == Data(expected), "complete \(entry.identifier) \(complete.metadata.url)")
                #expect(complete.byteCount == Int64(expected.count))
                checked += 1
            }
            if let partial = entry.partial {
                let expected = DiskCacheCrashHarnessSupport.content(for: partial.metadata.url)
                let bytes = try #require(cache.data(of: partial))
                #expect(partial.metadata.expectedLength == Int64(expected.count))
                #expect(
                    bytes.count < expected.count && bytes == Data(expected.prefix(bytes.count)),
                    "partial \(entry.identifier)")
                checked += 1
            }
        }
        let files = env.files()
        #expect(!files.contains { $0.hasPrefix(DiskCacheFiles.temporaryPrefix) }, "stray temporary files left")
        #expect(cache.totalBytes == env.dataBytes(storage: storage))
        let dataFiles = files.filter { !$0.contains("#") }
        #expect(
            dataFiles.count == entries.reduce(0) { $0 + ($1.complete == nil ? 0 : 1) + ($1.partial == nil ? 0 : 1) })
        if storage == .sidecar {
            #expect(files.filter { $0.contains(DiskCacheSidecar.suffix) }.count == dataFiles.count)
        }
        return checked
    }
}
