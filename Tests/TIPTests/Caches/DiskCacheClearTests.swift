import Foundation
import Testing

@testable import TIP

/// Clearing a disk cache while downloads make their temporary files in it: a file made while the directory is
/// being emptied is not a disk fault.
@Suite("Disk cache: clearing while downloads write")
struct DiskCacheClearTests {
    private func scratchDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tip-clear-\(UUID().uuidString)", isDirectory: true
        ).path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data("entry".utf8).write(to: URL(fileURLWithPath: path + "/entry"))
        return path
    }

    @Test("a temporary file made between emptying and rmdir: emptied again, and the directory goes")
    func refilledOnce() throws {
        let path = try scratchDirectory()
        var pass = 0
        let result = DiskCacheFiles.removeDirectory(path) {
            pass += 1
            if pass == 1 {
                _ = FileManager.default.createFile(atPath: path + "/" + DiskCacheFiles.temporaryName(), contents: nil)
            }
        }
        #expect(result == .removed)
        #expect(pass == 2)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("temporary files keep coming: the directory stays with only them in it, and that is not a failure")
    func refilledEveryTime() throws {
        let path = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        var pass = 0
        let result = DiskCacheFiles.removeDirectory(path, passes: 3) {
            pass += 1
            _ = FileManager.default.createFile(atPath: path + "/" + DiskCacheFiles.temporaryName(), contents: nil)
        }
        #expect(result == .refilled)
        #expect(pass == 3)
        let left = try FileManager.default.contentsOfDirectory(atPath: path)
        #expect(left.count == 1 && left.allSatisfy { $0.hasPrefix(DiskCacheFiles.temporaryPrefix) })
    }

    @Test("anything else left in it, or a path that cannot be read: a failure with its error")
    func otherLeftovers() throws {
        let path = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = DiskCacheFiles.removeDirectory(path) {
            _ = FileManager.default.createFile(atPath: path + "/not-a-download", contents: nil)
        }
        #expect(result == .failed(POSIXError(.ENOTEMPTY)))
        #expect(DiskCacheFiles.removeDirectory(path + "/not-a-download/below") == .failed(POSIXError(.ENOTDIR)))
        #expect(DiskCacheFiles.removeDirectory(path + "/missing") == .removed)
    }

    @Test("clearAll while another thread keeps making deferred download files: no write failure reported")
    func clearWhileDownloadsWrite() throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        let stop = Locked(false)
        let stopped = DispatchSemaphore(value: 0)
        let writer = Thread {
            while !stop.withLock({ $0 }) {
                let file = cache.reserveTemporaryFile(forIdentifier: "download")
                try? file.append(diskTestBytes(64))
                file.discard()
            }
            stopped.signal()
        }
        writer.start()
        for round in 0..<60 {
            #expect(cache.updateImageEntry(metadata: env.metadata("kept-\(round)"), source: .data(diskTestBytes(32))))
            let cleared = DispatchSemaphore(value: 0)
            cache.clearAll { cleared.signal() }
            #expect(cleared.wait(timeout: .now() + 30) == .success)
            #expect(cache.entry(withIdentifier: "kept-\(round)") == nil)
        }
        stop.withLock { $0 = true }
        stopped.wait()
        #expect(env.recorder.count(.diskCacheWriteFailed) == 0)
    }
}
