import Foundation
import Testing

@testable import TIP

@Suite("Disk cache faults and hostile input")
struct DiskCacheFaultTests {
    @Test(
        "Hostile identifiers stay inside the directory and round trip",
        arguments: [DiskCache.MetadataStorage.extendedAttributes, .sidecar])
    func hostileIdentifiers(storage: DiskCache.MetadataStorage) throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache(storage: storage)
        let identifiers = [
            "../escape", "/etc/passwd", "a/../../b", "nul\u{0}byte", String(repeating: "x", count: 10_240),
            ".", "..", "", "\u{FFFF}\u{1}\u{7F}\u{10FFFF}", "a", "a.meta", "a#meta", "#tip-tmp-1",
        ]
        #expect(!cache.updateImageEntry(metadata: env.metadata(""), source: .data(diskTestBytes(3))))
        #expect(cache.entry(withIdentifier: "") == nil)
        cache.clearImage(withIdentifier: "")
        #expect(throws: POSIXError.self) { try cache.changeIdentifier(from: "../escape", to: "") }
        for (index, identifier) in identifiers.enumerated() where !identifier.isEmpty {
            #expect(
                cache.updateImageEntry(metadata: env.metadata(identifier), source: .data(diskTestBytes(10 + index))),
                "\(identifier.prefix(20))")
        }
        for (index, identifier) in identifiers.enumerated() where !identifier.isEmpty {
            #expect(
                cache.completeData(withIdentifier: identifier)?.data == diskTestBytes(10 + index),
                "\(identifier.prefix(20))")
        }
        let parent = env.directory().deletingLastPathComponent()
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["test"])
        #expect(!FileManager.default.fileExists(atPath: env.root.appendingPathComponent("escape").path))
        #expect(env.files().allSatisfy { !$0.contains("/") && $0 != "." && $0 != ".." })
        cache.tearDown()
        let reopened = env.cache(storage: storage)
        #expect(reopened.totalBytes == env.dataBytes(storage: storage))
        #expect(reopened.completeData(withIdentifier: "../escape")?.data == diskTestBytes(10))
        #expect(reopened.completeData(withIdentifier: identifiers[4])?.data == diskTestBytes(14))
        #expect(reopened.entry(withIdentifier: identifiers[4])?.identifier == identifiers[4])
    }

    @Test("Identifier \"a.tmp\" and the partial of \"a\" share a file name: the totals stay exact")
    func partialNameCollision() throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        let file = try cache.openTemporaryFile(forIdentifier: "a")
        try file.append(diskTestBytes(5))
        #expect(file.finalize(metadata: env.metadata("a", expectedLength: 50), complete: false))
        #expect(cache.updateImageEntry(metadata: env.metadata("a.tmp"), source: .data(diskTestBytes(30))))
        #expect(cache.entry(withIdentifier: "a") == nil)
        #expect(cache.totalBytes == 30)
        #expect(cache.count == 1)
        cache.clearImage(withIdentifier: "a")
        #expect(cache.completeData(withIdentifier: "a.tmp")?.data == diskTestBytes(30))
        let again = try cache.openTemporaryFile(forIdentifier: "a")
        try again.append(diskTestBytes(6))
        #expect(again.finalize(metadata: env.metadata("a", expectedLength: 50), complete: false))
        #expect(cache.entry(withIdentifier: "a.tmp") == nil)
        #expect(cache.totalBytes == 6)
        cache.tearDown()
        let reopened = env.cache()
        #expect(reopened.totalBytes == 6)
        #expect(reopened.entry(withIdentifier: "a")?.partial?.byteCount == 6)
        reopened.tearDown()

        // The same while the manifest loads: looking up "a" must not delete identifier "a.tmp"'s file.
        let gate = DispatchSemaphore(value: 0)
        let loading = DiskCache(
            directory: env.directory(), domain: env.domain, configuration: env.configuration,
            metadataStorage: nil, manifestLoadHook: { gate.wait() })
        #expect(loading.updateImageEntry(metadata: env.metadata("a.tmp"), source: .data(diskTestBytes(30))))
        #expect(loading.entry(withIdentifier: "a") == nil)
        #expect(loading.completeData(withIdentifier: "a.tmp")?.data == diskTestBytes(30))
        gate.signal()
        loading.waitUntilManifestLoaded()
        #expect(loading.completeData(withIdentifier: "a.tmp")?.data == diskTestBytes(30))
        #expect(loading.totalBytes == 30)
        #expect(loading.count == 1)
    }

    @Test(
        "A symlink planted in the directory is never followed",
        arguments: [DiskCache.MetadataStorage.extendedAttributes, .sidecar])
    func plantedSymlink(storage: DiskCache.MetadataStorage) throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache(storage: storage)
        let outside = env.root.appendingPathComponent("outside")
        try Data("secret".utf8).write(to: outside)
        #expect(cache.updateImageEntry(metadata: env.metadata("victim"), source: .data(diskTestBytes(10))))
        let victim = env.directory().appendingPathComponent("victim")
        try FileManager.default.removeItem(at: victim)
        try FileManager.default.createSymbolicLink(at: victim, withDestinationURL: outside)
        #expect(cache.completeData(withIdentifier: "victim") == nil)
        #expect(throws: POSIXError.self) { try cache.copyCompleteFile(withIdentifier: "victim") }
        try FileManager.default.createSymbolicLink(
            at: env.directory().appendingPathComponent("planted"), withDestinationURL: outside)
        #expect(cache.entry(withIdentifier: "planted") == nil)
        // Writing over the link replaces the link, not the target.
        #expect(
            cache.updateImageEntry(metadata: env.metadata("planted"), source: .data(diskTestBytes(4)), forced: true))
        #expect(try Data(contentsOf: outside) == Data("secret".utf8))
        #expect(cache.completeData(withIdentifier: "planted")?.data == diskTestBytes(4))
        cache.tearDown()
        try FileManager.default.createSymbolicLink(
            at: env.directory().appendingPathComponent("planted2"), withDestinationURL: outside)
        let reopened = env.cache(storage: storage)
        #expect(!env.files().contains("planted2"))
        #expect(try Data(contentsOf: outside) == Data("secret".utf8))
        #expect(reopened.totalBytes == env.dataBytes(storage: storage))
    }

    @Test("A sidecar whose rename fails: the error is thrown and its temporary file goes")
    func sidecarRenameFailure() throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache(storage: .sidecar)
        // A non-empty directory where the sidecar goes: the rename cannot replace it.
        let blocker = env.directory().appendingPathComponent(DiskCacheSidecar.name(for: "x"))
        try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: blocker.appendingPathComponent("inside"))
        #expect(throws: POSIXError.self) {
            try cache.domain.sync {
                try cache.writeSidecar(DiskCacheSidecar(metadata: env.metadata("x"), inode: 1, size: 1), for: "x")
            }
        }
        #expect(!env.files().contains { $0.hasPrefix(DiskCacheFiles.temporaryPrefix) })
    }

    @Test("A read-only directory: writes fail with a problem, reads still work, totals stay consistent")
    func readOnlyDirectory() throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        #expect(cache.updateImageEntry(metadata: env.metadata("a"), source: .data(diskTestBytes(10))))
        if DiskCacheTestEnvironment.permissionsAreIgnored {
            // Root ignores chmod 0500; an immutable directory (chattr +i) stops it, where allowed.
            guard Self.chattr("+i", env.directory().path) else {
                print("skipped: running as root, chmod 0500 does not stop writes and chattr +i is not permitted")
                return
            }
        } else {
            #expect(chmod(env.directory().path, 0o500) == 0)
        }
        defer {
            if DiskCacheTestEnvironment.permissionsAreIgnored { _ = Self.chattr("-i", env.directory().path) }
            _ = chmod(env.directory().path, 0o700)
        }
        #expect(!cache.updateImageEntry(metadata: env.metadata("b"), source: .data(diskTestBytes(10))))
        #expect(env.recorder.count(.diskCacheWriteFailed) >= 1)
        #expect(throws: POSIXError.self) { try cache.openTemporaryFile(forIdentifier: "c") }
        #expect(cache.completeData(withIdentifier: "a")?.data == diskTestBytes(10))
        #expect(cache.totalBytes == 10)
        #expect(cache.count == 1)
    }

    @Test("A full disk (ENOSPC on a small tmpfs): writes fail with a problem, nothing torn is left, totals stay exact")
    func fullDisk() throws {
        let env = DiskCacheTestEnvironment()
        let directory = env.directory()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard mount("tmpfs", directory.path, "tmpfs", 0, "size=96k,mode=0700") == 0 else {
            print("skipped: cannot mount a small tmpfs here (errno \(errno)); ENOSPC not exercised")
            return
        }
        defer { _ = umount2(directory.path, Int32(MNT_DETACH)) }
        do {
            let cache = env.cache()  // storage chosen by probing: tmpfs may lack user xattrs
            #expect(cache.updateImageEntry(metadata: env.metadata("a"), source: .data(diskTestBytes(30_000))))
            #expect(cache.updateImageEntry(metadata: env.metadata("b"), source: .data(diskTestBytes(30_000))))
            #expect(!cache.updateImageEntry(metadata: env.metadata("c"), source: .data(diskTestBytes(80_000))))
            #expect(env.recorder.count(.diskCacheWriteFailed) >= 1)
            let file = try cache.openTemporaryFile(forIdentifier: "d")
            var appendFailed = false
            for _ in 0..<10 {
                do { try file.append(diskTestBytes(16_000)) } catch { appendFailed = true; break }
            }
            #expect(appendFailed)
            #expect(!file.finalize(metadata: env.metadata("d"), complete: true))
            #expect(!env.files().contains { $0.hasPrefix(DiskCacheFiles.temporaryPrefix) })
            #expect(cache.completeData(withIdentifier: "a")?.data == diskTestBytes(30_000))
            #expect(cache.entry(withIdentifier: "c") == nil)
            #expect(cache.count == 2)
            #expect(cache.totalBytes == env.dataBytes(storage: cache.metadataStorage))
            #expect(env.domain.sync { env.domain.budget.totalBytes } == cache.totalBytes)
            cache.tearDown()
        }
    }

    /// Runs `chattr <flag> <path>`; false when unavailable or refused.
    static func chattr(_ flag: String, _ path: String) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/chattr")
        process.arguments = [flag, path]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    @Test("A vanished directory is recreated with a problem; the totals drop to what is on disk")
    func vanishedDirectory() throws {
        let env = DiskCacheTestEnvironment()
        let cache = env.cache()
        #expect(cache.updateImageEntry(metadata: env.metadata("a"), source: .data(diskTestBytes(10))))
        let file = try cache.openTemporaryFile(forIdentifier: "late")
        try file.append(diskTestBytes(3))
        try FileManager.default.removeItem(at: env.directory())
        #expect(cache.completeData(withIdentifier: "a") == nil)
        #expect(cache.totalBytes == 0)
        #expect(cache.updateImageEntry(metadata: env.metadata("b"), source: .data(diskTestBytes(20))))
        #expect(env.recorder.count(.diskCacheDirectoryRecreated) == 1)
        #expect(!file.finalize(metadata: env.metadata("late"), complete: true))
        #expect(cache.count == 1)
        #expect(cache.totalBytes == 20)
        #expect(env.domain.sync { env.domain.budget.totalBytes } == 20)
        #expect(env.files() == ["b"])
    }
}
