import Foundation
import Testing

@testable import TIP

#if canImport(Glibc)
import Glibc
#endif

/// An unusable caches root is reported when a pipeline stands up, with the real errno; fetches still work from
/// memory. Changing the root under live pipelines warns.
@Suite("Caches root: misconfiguration is reported")
struct CachesRootCheckTests {
    /// A configuration on `root` with a stepped provider, a problem recorder and a capturing logger.
    private func standUp(root: URL) -> (
        GlobalConfiguration, ImagePipeline?, RecordingProblemObserver, CapturingLogger, SteppedDownloadProvider
    ) {
        let configuration = GlobalConfiguration(cachesRootDirectory: root)
        configuration.callbackQueue = DispatchQueue(label: "caches-root.callbacks")
        configuration.maxImageDownloadDuration = 0  // downloads are stepped by hand: no time limits
        configuration.minimumImageDownloadBytesPerSecond = 0
        let problems = RecordingProblemObserver(), logger = CapturingLogger(), provider = SteppedDownloadProvider()
        configuration.problemObserver = problems
        configuration.logger = logger
        configuration.imageFetchDownloadProvider = provider
        return (
            configuration, ImagePipeline(identifier: "root-check", configuration: configuration), problems, logger,
            provider
        )
    }

    private func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tip-root-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test("a file as the caches root: ENOTDIR at stand-up, writes report ENOTDIR (not ENOENT), fetches still succeed")
    func fileAsRoot() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("not-a-directory")
        try Data("x".utf8).write(to: file)
        let (configuration, created, problems, logger, provider) = standUp(root: file)
        let pipeline = try #require(created)
        let info = try #require(problems.infos(.diskCacheDirectoryUnusable).first)
        #expect(info[ProblemInfoKey.errno] as? Int == Int(ENOTDIR))
        #expect(info[ProblemInfoKey.path] as? String == pipeline.directory.path)
        let logged = logger.messages(containing: "ENOTDIR", level: .error)
        #expect(
            logged.count == 1 && logged[0].contains("root-check") && logged[0].contains("cachesRootDirectory"),
            "\(logged)")

        // The fetch still succeeds (memory), and the failed disk write names the real cause.
        let jpeg = try DownloaderTestEnvironment.jpeg(width: 64, height: 48)
        let url = SteppedPipelineEnvironment.url("a.jpg")
        let source = Locked<ImageLoadSource?>(nil)
        let operation = pipeline.operation(with: GenericImageFetchRequest(imageURL: url)) { result, _ in
            source.withLock { $0 = result?.imageSource }
        }
        pipeline.fetchImage(with: operation)
        try await provider.next().serve(jpeg)
        #expect(await eventually { operation.isFinished })
        #expect(source.withLock { $0 } == .network)
        var store = GenericImageStoreRequest(imageURL: SteppedPipelineEnvironment.url("b.jpg"))
        store.imageData = jpeg
        await withCheckedContinuation { done in pipeline.storeImage(with: store) { _, _ in done.resume() } }
        let failures = problems.infos(.diskCacheWriteFailed).compactMap { $0[ProblemInfoKey.error] as? String }
        #expect(!failures.isEmpty && failures.allSatisfy { $0.hasPrefix("ENOTDIR") }, "\(failures)")
        _ = configuration
    }

    @Test("/proc as the caches root: reported with the errno mkdir gave")
    func procAsRoot() throws {
        let (_, created, problems, _, _) = standUp(root: URL(fileURLWithPath: "/proc/tip-caches", isDirectory: true))
        #expect(created != nil)
        let expected = mkdir("/proc/tip-caches", 0o700) == 0 ? 0 : errno
        let info = try #require(problems.infos(.diskCacheDirectoryUnusable).first)
        #expect(info[ProblemInfoKey.errno] as? Int == Int(expected))
    }

    @Test("a read-only caches root: EROFS on a read-only mount")
    func readOnlyMount() throws {
        let directory = try temporaryDirectory()
        defer {
            _ = umount2(directory.path, Int32(MNT_DETACH))
            try? FileManager.default.removeItem(at: directory)
        }
        guard mount("tmpfs", directory.path, "tmpfs", UInt(MS_RDONLY), "size=64k") == 0 else {
            print("skipped: cannot mount a read-only tmpfs here (errno \(errno))")
            return
        }
        let (_, _, problems, _, _) = standUp(root: directory)
        let info = try #require(problems.infos(.diskCacheDirectoryUnusable).first)
        #expect(info[ProblemInfoKey.errno] as? Int == Int(EROFS))
    }

    @Test("a directory this user may not write: EACCES (as root, checked in a child run as nobody)")
    func notWritable() async throws {
        let directory = try temporaryDirectory()
        defer {
            chmod(directory.path, 0o755)
            try? FileManager.default.removeItem(at: directory)
        }
        chmod(directory.path, 0o555)
        if geteuid() != 0 {
            let (_, _, problems, _, _) = standUp(root: directory)
            let info = try #require(problems.infos(.diskCacheDirectoryUnusable).first)
            #expect(info[ProblemInfoKey.errno] as? Int == Int(EACCES))
            return
        }
        // Root writes anywhere: drop to nobody in a child (the check runs in the pipeline's initializer).
        guard let harness = TestExecutables.url(named: "TIPCallbackHarness"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
        else {
            print("skipped: TIPCallbackHarness or setpriv missing; EACCES not exercised")
            return
        }
        let run = try await TestExecutables.run(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            ["--reuid=65534", "--regid=65534", "--clear-groups", harness.path, "check-root", directory.path],
            environment: ["HOME": directory.path], timeout: 60)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(
            run.stdout.contains("problem TIPProblemDiskCacheDirectoryUnusable errno=\(EACCES)"), "stdout: \(run.stdout)"
        )
        #expect(run.stderr.contains("EACCES"), "the default logger says it on stderr: \(run.stderr)")
    }

    @Test("changing cachesRootDirectory while pipelines are live warns, naming them; before any, it is silent")
    func rootChangedLate() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = GlobalConfiguration(cachesRootDirectory: directory)
        let logger = CapturingLogger()
        configuration.logger = logger
        configuration.cachesRootDirectory = directory.appendingPathComponent("early")
        #expect(logger.messages(containing: "cachesRootDirectory").isEmpty)
        let pipeline = try #require(ImagePipeline(identifier: "late-root", configuration: configuration))
        configuration.cachesRootDirectory = directory.appendingPathComponent("late")
        let warnings = logger.messages(containing: "cachesRootDirectory changed", level: .warning)
        #expect(warnings.count == 1 && warnings[0].contains("late-root"), "\(warnings)")
        #expect(pipeline.directory.path.hasPrefix(directory.appendingPathComponent("early").path))
    }

    @Test("setting the same root again while pipelines are live is silent, with or without a trailing slash")
    func sameRootAgain() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = URL(fileURLWithPath: directory.path + "/same", isDirectory: false)
        let configuration = GlobalConfiguration(cachesRootDirectory: root)
        let logger = CapturingLogger()
        configuration.logger = logger
        let pipeline = try #require(ImagePipeline(identifier: "same-root", configuration: configuration))
        // The pipeline made the directory: the same path now reads back with a trailing slash.
        configuration.cachesRootDirectory = URL(fileURLWithPath: directory.path + "/same")
        configuration.cachesRootDirectory = URL(fileURLWithPath: directory.path + "/same/", isDirectory: true)
        configuration.cachesRootDirectory = URL(fileURLWithPath: directory.path + "/./same")
        #expect(logger.messages(containing: "cachesRootDirectory").isEmpty, "\(logger.messages(containing: ""))")
        withExtendedLifetime(pipeline) {}
    }
}
