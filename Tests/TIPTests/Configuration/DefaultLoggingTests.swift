import Foundation
import Logging
import Testing

@testable import TIP

/// A swift-log handler that keeps what it is given.
private struct KeepingHandler: LogHandler {
    let kept: Locked<[(label: String, level: Logger.Level, message: String)]>
    let label: String
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        kept.withLock { $0.append((label, event.level, event.message.description)) }
    }
}

/// The library logs through swift-log by default (label TIP, warnings and up); nil silences it.
@Suite("Default logging")
struct DefaultLoggingTests {
    @Test("a configuration starts with the swift-log logger, warnings and more severe")
    func defaultLogger() {
        let configuration = GlobalConfiguration(cachesRootDirectory: FileManager.default.temporaryDirectory)
        let logger = configuration.logger as? DefaultPipelineLogger
        #expect(logger != nil)
        #expect(logger?.canLog(.warning) == true && logger?.canLog(.error) == true)
        #expect(logger?.canLog(.notice) == false && logger?.canLog(.debug) == false)
        #expect(GlobalConfiguration.defaultLogger is DefaultPipelineLogger)
    }

    @Test("messages reach a swift-log handler under the label TIP, at swift-log's level; nil silences")
    func reachesSwiftLog() {
        let kept = Locked<[(label: String, level: Logger.Level, message: String)]>([])
        let configuration = GlobalConfiguration(cachesRootDirectory: FileManager.default.temporaryDirectory)
        configuration.logger = DefaultPipelineLogger(minimumLevel: .warning) { label in
            Logger(label: label) { label in KeepingHandler(kept: kept, label: label) }
        }
        configuration.log(.warning, "a warning")
        configuration.log(.information, "not wanted")
        configuration.log(.critical, "critical")
        let entries = kept.withLock { $0 }
        #expect(entries.map(\.message) == ["a warning", "critical"])
        #expect(entries.allSatisfy { $0.label == "TIP" })
        #expect(entries.map(\.level) == [.warning, .critical])
        configuration.logger = nil
        configuration.log(.error, "silenced")
        #expect(kept.withLock { $0.count } == 2)
    }

    @Test("an application that bootstraps LoggingSystem sees TIP's messages without configuring TIP")
    func bootstrappedApplication() async throws {
        guard let harness = TestExecutables.url(named: "TIPCallbackHarness") else {
            Issue.record("TIPCallbackHarness not found next to the test bundle: run `swift build` first")
            return
        }
        let run = try await TestExecutables.run(harness, ["log-bootstrap"], timeout: 60)
        #expect(run.status == 0, "stderr: \(run.stderr)")
        #expect(
            run.stdout.contains("TIP") && run.stdout.contains("is not a valid image pipeline identifier"),
            "stdout: \(run.stdout)")
    }
}
