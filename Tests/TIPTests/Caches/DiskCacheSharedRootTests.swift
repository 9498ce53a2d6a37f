import Foundation
import Testing

@testable import TIP

/// Two processes on one caches root: loading the manifest sweeps the temporary files a crash left, but not the ones
/// another process is still writing (their descriptors hold a `flock`; flock locks belong to open file
/// descriptions, so a descriptor opened here stands for another process's).
@Suite("Disk cache: a caches root shared with another process")
struct DiskCacheSharedRootTests {
    @Test("a temporary file another process has open survives the load; once closed, the next load removes it")
    func inUseTemporaryFileSurvives() throws {
        let env = DiskCacheTestEnvironment()
        let first = env.cache()
        #expect(first.updateImageEntry(metadata: env.metadata("kept"), source: .data(diskTestBytes(40))))
        let directory = env.directory().path
        let writing = DiskCacheFiles.temporaryName()
        let fd = try DiskCacheFiles.create(directory + "/" + writing)
        try DiskCacheFiles.writeAll(fd, diskTestBytes(100))
        let crashed = DiskCacheFiles.temporaryName()
        try diskTestBytes(50).write(to: URL(fileURLWithPath: directory + "/" + crashed))
        let link = DiskCacheFiles.temporaryName()
        try FileManager.default.createSymbolicLink(atPath: directory + "/" + link, withDestinationPath: "/etc/hostname")

        let second = env.cache()
        #expect(second.completeData(withIdentifier: "kept")?.data == diskTestBytes(40))
        #expect(env.files().contains(writing), "another process's download was deleted")
        #expect(!env.files().contains(crashed) && !env.files().contains(link))

        DiskCacheFiles.close(fd)
        _ = env.cache()
        #expect(!env.files().contains(writing))
        #expect(!env.files().contains { $0.hasPrefix(DiskCacheFiles.temporaryPrefix) })
        #expect(env.recorder.count(.diskCacheWriteFailed) == 0)
    }

    @Test("the files this cache creates hold the lock while open")
    func createdFilesAreLocked() throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        let file = try cache.openTemporaryFile(forIdentifier: "a")
        try file.append(diskTestBytes(10))
        #expect(!DiskCacheFiles.removeUnlessInUse(file.fileURL.path))
        #expect(FileManager.default.fileExists(atPath: file.fileURL.path))
        file.discard()
        let deferred = cache.reserveTemporaryFile(forIdentifier: "b")
        try deferred.append(diskTestBytes(10))
        #expect(!DiskCacheFiles.removeUnlessInUse(deferred.fileURL.path))
        #expect(deferred.finalize(metadata: env.metadata("b"), complete: true))
        #expect(cache.completeData(withIdentifier: "b")?.data == diskTestBytes(10))
    }
}
