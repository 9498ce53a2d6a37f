import Foundation
import Testing

@testable import TIP

/// A disk that fails every write (full, read-only, or a caches root that cannot hold files) must not flood the
/// log: every failure still reaches the problem observer.
@Suite("Disk cache: repeated write failures")
struct DiskCacheWriteFailureLogTests {
    @Test("one error a minute per errno in the log, the repeats at debug level; every one to the observer")
    func repeatsAreQuiet() throws {
        let env = DiskCacheTestEnvironment()
        let logger = CapturingLogger()
        env.configuration.logger = logger
        let cache = env.cache()
        let directory = env.directory()
        let aside = directory.deletingLastPathComponent().appendingPathComponent("aside")
        try FileManager.default.moveItem(at: directory, to: aside)
        try Data("not a directory".utf8).write(to: directory)
        for index in 0..<5 {
            #expect(!cache.updateImageEntry(metadata: env.metadata("w\(index)"), source: .data(diskTestBytes(16))))
        }
        #expect(env.recorder.count(.diskCacheWriteFailed) == 5)
        #expect(logger.messages(containing: "disk cache write failed", level: .error).count == 1)
        #expect(logger.messages(containing: "disk cache write failed", level: .debug).count == 4)
        env.advance(DiskCache.repeatedWriteFailureQuietInterval + 1)
        #expect(!cache.updateImageEntry(metadata: env.metadata("later"), source: .data(diskTestBytes(16))))
        #expect(logger.messages(containing: "disk cache write failed", level: .error).count == 2)
        #expect(env.recorder.count(.diskCacheWriteFailed) == 6)
    }
}
