import Foundation
import Testing

@testable import TIP

/// A fresh configuration rooted in its own temporary directory, on `clock` (nil: the system's). The downloads' time
/// limits are off: tests step downloads by hand, and a loaded machine may take longer than a limit between two
/// steps (the time-limit tests set their own).
func makeTestConfiguration(_ name: String = #function, clock: TestClock? = nil) throws -> (GlobalConfiguration, URL) {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent(
        "tip-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    let configuration =
        clock.map { GlobalConfiguration(cachesRootDirectory: root, clock: $0.read) }
        ?? GlobalConfiguration(cachesRootDirectory: root)
    configuration.maxImageDownloadDuration = 0
    configuration.minimumImageDownloadBytesPerSecond = 0
    configuration.callbackQueue = DispatchQueue(label: "tip-tests.callbacks")
    return (configuration, root)
}

private final class RecordingObserver: ImagePipelineObserver {
    let events = Locked<[String]>([])
    func imagePipelineDidStandUp(_ pipeline: ImagePipeline) {
        events.withLock { $0.append("up:\(pipeline.identifier)") }
    }
    func imagePipelineDidTearDown(identifier: String) { events.withLock { $0.append("down:\(identifier)") } }
}

@Suite("Image pipeline lifecycle")
struct ImagePipelineLifecycleTests {
    @Test(
        "Identifier rules",
        arguments: [
            ("avatars", true), ("a.b_c-D9", true), ("", false), (".", false), ("..", false), ("a/b", false),
            ("a b", false), ("ünïcode", false), ("a\u{0}", false), ("...", true),
            (String(repeating: "a", count: 255), true), (String(repeating: "a", count: 256), false),
        ])
    func identifiers(identifier: String, valid: Bool) {
        #expect(ImagePipeline.isValidIdentifier(identifier) == valid)
    }

    @Test("An identifier too long to name a directory is refused; the longest one makes a working disk cache")
    func identifierLength() throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let long = String(repeating: "p", count: ImagePipeline.maximumIdentifierLength + 1)
        #expect(throws: ImagePipelineIdentifierError.invalid(long)) {
            try ImagePipeline(checkedIdentifier: long, configuration: configuration)
        }
        let longest = String(long.dropLast())
        let pipeline = try ImagePipeline(checkedIdentifier: longest, configuration: configuration)
        #expect(
            pipeline.diskCache.updateImageEntry(
                metadata: DiskCacheMetadata(
                    identifier: "x", url: URL(string: "https://example.com/x.jpg")!, lastAccess: Date(), timeToLive: 60,
                    updatesExpiryOnAccess: true, width: 1, height: 1, isAnimated: false, isPlaceholder: false,
                    imageType: "public.jpeg"),
                source: .data(Data([1, 2, 3]))))
        #expect(FileManager.default.fileExists(atPath: pipeline.directory.appendingPathComponent("x").path))
    }

    @Test("One live pipeline per identifier; the identifier is free again after tear-down")
    func uniqueness() throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        var first: ImagePipeline? = ImagePipeline(identifier: "photos", configuration: configuration)
        #expect(first != nil)
        #expect(ImagePipeline(identifier: "photos", configuration: configuration) == nil)
        #expect(ImagePipeline(identifier: "bad/id", configuration: configuration) == nil)
        #expect(configuration.registry.isRegistered("photos"))
        first = nil
        #expect(!configuration.registry.isRegistered("photos"))
        let again = ImagePipeline(identifier: "photos", configuration: configuration)
        #expect(again != nil)
        #expect(again?.directory.path == root.path + "/TIPImagePipeline/photos")
    }

    @Test("Stand-up and tear-down reach global observers and notifications")
    func events() throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let observer = RecordingObserver()
        configuration.addImagePipelineObserver(observer)
        let torn = Locked<[String]>([])
        let token = NotificationCenter.default.addObserver(
            forName: ImagePipeline.didTearDownNotification, object: nil, queue: nil
        ) { note in
            if let id = note.userInfo?[ImagePipeline.notificationPipelineIdentifierKey] as? String {
                torn.withLock { $0.append(id) }
            }
        }
        defer { NotificationCenter.default.removeObserver(token) }
        var pipeline: ImagePipeline? = ImagePipeline(
            identifier: "events-\(UUID().uuidString.prefix(8))", configuration: configuration)
        let identifier = try #require(pipeline?.identifier)
        pipeline = nil
        #expect(observer.events.withLock { $0 } == ["up:\(identifier)", "down:\(identifier)"])
        #expect(torn.withLock { $0.contains(identifier) })
        configuration.removeImagePipelineObserver(observer)
        _ = ImagePipeline(identifier: "quiet", configuration: configuration)
        #expect(observer.events.withLock { $0.count } == 2)
    }

    @Test("Budget setters: negative restores the default, values apply to the shared budget")
    func budgets() throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(configuration.maxBytesForAllMemoryCaches == 48 * 1024 * 1024)
        #expect(configuration.maxBytesForAllDiskCaches == 128 * 1024 * 1024)
        #expect(configuration.maxCountForAllRenderedCaches == 255 && configuration.maxCountForAllDiskCaches == 2047)
        let ram = Int64(ProcessInfo.processInfo.physicalMemory)
        #expect(configuration.maxBytesForAllRenderedCaches == min(ram / 12, 160 * 1024 * 1024) / 2)
        configuration.maxBytesForAllMemoryCaches = 1_000
        #expect(configuration.maxBytesForAllMemoryCaches == 1_000)
        #expect(configuration.memoryDomain.withLock { $0.maxBytes } == 1_000)
        configuration.maxBytesForAllMemoryCaches = -5
        #expect(configuration.maxBytesForAllMemoryCaches == 48 * 1024 * 1024)
        configuration.maxCountForAllDiskCaches = 0
        #expect(configuration.diskDomain.sync { configuration.diskDomain.budget.maxCount } == 0)
        configuration.maxCountForAllDiskCaches = -1
        #expect(configuration.maxCountForAllDiskCaches == 2047)
        configuration.maxRatioSizeOfCacheEntry = -2
        #expect(configuration.maxRatioSizeOfCacheEntry == 6)
        configuration.maxRatioSizeOfCacheEntry = 1
        #expect(configuration.renderedDomain.withLock { $0.maxBytesPerEntry } == Int64.max)
    }

    @Test("Known identifiers are the pipeline directories under the root, live or not")
    func knownIdentifiers() async throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let base = root.appendingPathComponent("TIPImagePipeline")
        for name in ["one", "two", "not valid"] {
            try FileManager.default.createDirectory(
                at: base.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        #expect(FileManager.default.createFile(atPath: base.appendingPathComponent("file").path, contents: Data()))
        let identifiers = await withCheckedContinuation { continuation in
            configuration.knownImagePipelineIdentifiers { continuation.resume(returning: $0) }
        }
        #expect(identifiers == ["one", "two"])
    }

    @Test("Problems reach the observer and the logger")
    func problemsAndLogging() throws {
        final class Observer: ProblemObserver {
            let problems = Locked<[Problem]>([])
            func problemWasEncountered(_ problem: Problem, userInfo: [String: any Sendable]) {
                problems.withLock { $0.append(problem) }
            }
        }
        final class Recorder: PipelineLogger {
            let lines = Locked<[String]>([])
            func canLog(_ level: PipelineLogLevel) -> Bool { level <= .warning }
            func log(_ level: PipelineLogLevel, file: String, function: String, line: Int, message: String) {
                lines.withLock { $0.append("\(level):\(message)") }
            }
        }
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let observer = Observer()
        let recorder = Recorder()
        configuration.problemObserver = observer
        configuration.logger = recorder
        configuration.post(.imageFailedToScale, userInfo: [ProblemInfoKey.imageIdentifier: "x"])
        configuration.log(.debug, "not wanted")
        #expect(observer.problems.withLock { $0 } == [.imageFailedToScale])
        #expect(recorder.lines.withLock { $0.count } == 1)
        #expect(
            SwiftLogPipelineLogger.swiftLogLevel(.alert) == .critical
                && SwiftLogPipelineLogger.swiftLogLevel(.information) == .info)
    }

    @Test("A refused duplicate never touches the live pipeline's directory (an in-flight write survives)")
    func duplicateLeavesDirectoryAlone() throws {
        let (configuration, root) = try makeTestConfiguration()
        defer { try? FileManager.default.removeItem(at: root) }
        let live = try #require(ImagePipeline(identifier: "busy", configuration: configuration))
        live.diskCache.waitUntilManifestLoaded()
        let file = try live.diskCache.openTemporaryFile(forIdentifier: "in-flight")
        try file.append(Data(repeating: 5, count: 1_000))
        for _ in 0..<5 {
            #expect(ImagePipeline(identifier: "busy", configuration: configuration) == nil)
        }
        let metadata = DiskCacheMetadata(
            identifier: "in-flight", url: URL(string: "https://example.com/f")!, lastAccess: Date(),
            timeToLive: 3_600, width: 10, height: 10)
        #expect(file.finalize(metadata: metadata, complete: true))
        #expect(live.diskCache.completeData(withIdentifier: "in-flight")?.data.count == 1_000)
    }
}
