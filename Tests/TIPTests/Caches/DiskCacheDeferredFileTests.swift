import Foundation
import Testing

@testable import TIP

/// Download files whose creation waits for their first write (`reserveTemporaryFile`), so that a download that
/// ends small does all its file work at the commit, off the downloader's queue.
@Suite("Disk cache: deferred download files")
struct DiskCacheDeferredFileTests {
    @Test("nothing exists until the first write; then it is an ordinary temporary file that installs")
    func createdOnFirstWrite() throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        let before = env.files()
        let file = cache.reserveTemporaryFile(forIdentifier: "a")
        #expect(file.isOpen)
        #expect(file.byteCount == 0)
        #expect(env.files() == before)
        try file.append(diskTestBytes(100))
        #expect(env.files().contains(file.name))
        try file.append(diskTestBytes(20, seed: 2))
        #expect(file.finalize(metadata: env.metadata("a"), complete: true))
        #expect(!file.isOpen)
        #expect(cache.completeData(withIdentifier: "a")?.data == diskTestBytes(100) + diskTestBytes(20, seed: 2))
        #expect(!env.files().contains(file.name))
        #expect(env.recorder.count(.diskCacheWriteFailed) == 0)
    }

    @Test("discarded before any write: no file was ever made and none is left")
    func discardedUnwritten() {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        let before = env.files()
        let file = cache.reserveTemporaryFile(forIdentifier: "b")
        file.discard()
        #expect(!file.isOpen)
        #expect(!file.finalize(metadata: env.metadata("b"), complete: true))
        #expect(env.files() == before)
        #expect(cache.entry(withIdentifier: "b") == nil)
        // Dropped without a discard: the same.
        _ = cache.reserveTemporaryFile(forIdentifier: "c")
        #expect(env.files() == before)
    }

    @Test("finalized without a write: the same outcome as an eagerly made file, and no file left behind")
    func finalizedUnwritten() throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        let before = env.files()
        let eager = try cache.openTemporaryFile(forIdentifier: "p")
        let eagerKept = eager.finalize(metadata: env.metadata("p", expectedLength: 10), complete: false)
        let deferred = cache.reserveTemporaryFile(forIdentifier: "q")
        let deferredKept = deferred.finalize(metadata: env.metadata("q", expectedLength: 10), complete: false)
        #expect(deferredKept == eagerKept)
        #expect((cache.entry(withIdentifier: "q") != nil) == (cache.entry(withIdentifier: "p") != nil))
        if !eagerKept { #expect(env.files() == before) }
    }

    @Test("the directory vanished before the first write: it is made again and the write succeeds")
    func vanishedDirectory() throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        let file = cache.reserveTemporaryFile(forIdentifier: "d")
        try FileManager.default.removeItem(at: env.directory())
        try file.append(diskTestBytes(10))
        #expect(file.finalize(metadata: env.metadata("d"), complete: true))
        #expect(cache.completeData(withIdentifier: "d")?.data == diskTestBytes(10))
    }

    @Test("the file cannot be made (the directory is now a plain file): a typed error, a problem, nothing installed")
    func cannotCreate() throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        #expect(cache.updateImageEntry(metadata: env.metadata("kept"), source: .data(diskTestBytes(7))))
        let file = cache.reserveTemporaryFile(forIdentifier: "e")
        let directory = env.directory()
        let aside = directory.deletingLastPathComponent().appendingPathComponent("aside")
        try FileManager.default.moveItem(at: directory, to: aside)
        try Data("not a directory".utf8).write(to: directory)
        #expect(throws: POSIXError.self) { try file.append(diskTestBytes(10)) }
        #expect(env.recorder.count(.diskCacheWriteFailed) == 1)
        #expect(!file.isOpen)
        #expect(!file.finalize(metadata: env.metadata("e"), complete: true))
        // Finalizing straight away reports the failure too.
        let other = cache.reserveTemporaryFile(forIdentifier: "f")
        #expect(!other.finalize(metadata: env.metadata("f"), complete: true))
        #expect(env.recorder.count(.diskCacheWriteFailed) == 2)
        // Put back: the entry written before is untouched.
        try FileManager.default.removeItem(at: directory)
        try FileManager.default.moveItem(at: aside, to: directory)
        #expect(cache.completeData(withIdentifier: "kept")?.data == diskTestBytes(7))
        #expect(cache.entry(withIdentifier: "e") == nil && cache.entry(withIdentifier: "f") == nil)
    }
}
