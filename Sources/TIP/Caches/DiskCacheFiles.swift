import CXattr
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The POSIX file operations the disk cache is built on. Files are opened with `O_NOFOLLOW` (a
/// symlink planted in the cache directory is never followed) and must be regular files; metadata
/// goes through the file descriptor, so it always belongs to the file that was opened.
enum DiskCacheFiles {
    /// Prefix of temporary file names. `#` is always percent-encoded in safe names, so no entry file
    /// can start with it; the manifest deletes leftovers with this prefix.
    static let temporaryPrefix = "#tip-tmp-"

    /// A fresh unique temporary file name.
    static func temporaryName() -> String {
        temporaryPrefix + String(UInt64.random(in: 0...UInt64.max), radix: 16)
            + String(UInt32.random(in: 0...UInt32.max), radix: 16)
    }

    /// The current `errno` as a `POSIXError`.
    static func lastError() -> POSIXError {
        POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
    }

    /// Opens `path` without following a final symlink; close-on-exec. Throws the `errno`.
    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o600) throws(POSIXError) -> Int32 {
        var fd: Int32
        repeat {
            fd = Glibc.open(path, flags | O_NOFOLLOW | O_CLOEXEC, mode)
        } while fd < 0 && errno == EINTR
        if fd < 0 { throw lastError() }
        return fd
    }

    /// Creates a new file exclusively (mode 0600) for writing. The descriptor holds an exclusive `flock` on it, so
    /// that another process's cache on the same directory sees the file is being written
    /// (``removeUnlessInUse(_:)``); the lock goes with the descriptor, or with the process.
    static func create(_ path: String) throws(POSIXError) -> Int32 {
        let fd = try open(path, O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
        _ = flock(fd, LOCK_EX | LOCK_NB)
        return fd
    }

    /// Removes the file at `path` (a temporary file left in the directory) unless a descriptor from ``create(_:)``
    /// still has it, in this process or another one on the same caches root. Returns whether it was removed.
    @discardableResult
    static func removeUnlessInUse(_ path: String) -> Bool {
        let fd = Glibc.open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return remove(path) }  // a symlink, or nothing this cache wrote
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return false }
        return remove(path)
    }

    /// Size and inode of an open regular file; nil for anything else.
    static func regularFileInfo(_ fd: Int32) -> (size: Int64, inode: UInt64)? {
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return (Int64(info.st_size), UInt64(info.st_ino))
    }

    /// Size and inode of the regular file at `path` (not following symlinks); nil otherwise.
    static func regularFileInfo(atPath path: String) -> (size: Int64, inode: UInt64)? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return (Int64(info.st_size), UInt64(info.st_ino))
    }

    /// Writes all `count` bytes.
    static func writeAll(_ fd: Int32, _ base: UnsafeRawPointer?, _ count: Int) throws(POSIXError) {
        guard let base, count > 0 else { return }
        var done = 0
        while done < count {
            let written = Glibc.write(fd, base + done, count - done)
            if written < 0 {
                if errno == EINTR { continue }
                throw lastError()
            }
            if written == 0 { throw POSIXError(.EIO) }
            done += written
        }
    }

    /// Writes all of `data`.
    static func writeAll(_ fd: Int32, _ data: Data) throws(POSIXError) {
        let result: POSIXError? = data.withUnsafeBytes { buffer in
            do throws(POSIXError) { try writeAll(fd, buffer.baseAddress, buffer.count); return nil } catch {
                return error
            }
        }
        if let result { throw result }
    }

    /// Flushes a file to storage.
    static func sync(_ fd: Int32) throws(POSIXError) {
        if fsync(fd) != 0 && errno != EINVAL { throw lastError() }
    }

    /// Files at least this large are memory-mapped by ``readAll(_:mapLargeFiles:)``.
    static let mappingThreshold: Int64 = 64 * 1024

    /// Reads an open regular file whole (nil on error, when it is not regular or over `maximumSize`). With
    /// `mapLargeFiles`, files of ``mappingThreshold`` bytes or more are mapped instead of copied: safe
    /// for cache files, which are never modified in place (only replaced by rename or unlinked).
    static func readAll(_ fd: Int32, mapLargeFiles: Bool = false, maximumSize: Int64 = Int64(Int.max / 2)) -> Data? {
        guard let info = regularFileInfo(fd), info.size >= 0, info.size <= maximumSize else { return nil }
        if mapLargeFiles && info.size >= mappingThreshold {
            let count = Int(info.size)
            // The whole file is read at once (checksum, then decode): its pages are mapped in one call rather
            // than a fault per 16 pages (4% of a warm main job's page faults).
            var flags = MAP_PRIVATE
            #if os(Linux)
            flags |= MAP_POPULATE
            #endif
            if let base = mmap(nil, count, PROT_READ, flags, fd, 0), base != MAP_FAILED {
                return Data(
                    bytesNoCopy: base, count: count,
                    deallocator: .custom { pointer, length in _ = munmap(pointer, length) })
            }
        }
        var data = Data(count: Int(info.size))
        var ok = true
        data.withUnsafeMutableBytes { buffer in
            var done = 0
            while done < buffer.count {
                let got = pread(fd, buffer.baseAddress! + done, buffer.count - done, off_t(done))
                if got < 0 && errno == EINTR { continue }
                if got <= 0 { ok = false; return }
                done += got
            }
        }
        return ok ? data : nil
    }

    /// Copies everything from `source` (from offset 0) to the end of `destination`; returns bytes copied.
    @discardableResult
    static func copy(from source: Int32, to destination: Int32) throws(POSIXError) -> Int64 {
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var offset: off_t = 0
        while true {
            let got = buffer.withUnsafeMutableBytes { pread(source, $0.baseAddress, $0.count, offset) }
            if got < 0 {
                if errno == EINTR { continue }
                throw lastError()
            }
            if got == 0 { return Int64(offset) }
            let failure: POSIXError? = buffer.withUnsafeBytes { raw in
                do throws(POSIXError) { try writeAll(destination, raw.baseAddress, got); return nil } catch {
                    return error
                }
            }
            if let failure { throw failure }
            offset += off_t(got)
        }
    }

    /// Renames within the directory (atomic replace).
    static func rename(_ from: String, _ to: String) throws(POSIXError) {
        if Glibc.rename(from, to) != 0 { throw lastError() }
    }

    /// Removes a file; absence is not an error. Returns false on another failure.
    @discardableResult
    static func remove(_ path: String) -> Bool {
        Glibc.unlink(path) == 0 || errno == ENOENT
    }

    /// How ``removeDirectory(_:passes:beforeRemovingDirectory:)`` ended.
    enum DirectoryRemoval: Equatable {
        /// The directory is gone (or was never there).
        case removed
        /// Still there after every pass, each time holding only temporary files made in it while it was emptied
        /// (in-flight downloads', created on their own queues).
        case refilled
        /// Not removed for another reason (permissions, a read-only file system): the error.
        case failed(POSIXError)
    }

    /// Removes the directory at `path` and everything in it. A temporary file made in it while it is being emptied
    /// makes the final `rmdir` fail with ENOTEMPTY: it is then emptied again, up to `passes` times.
    /// `beforeRemovingDirectory` runs between emptying and `rmdir` in each pass (tests).
    static func removeDirectory(
        _ path: String, passes: Int = 5, beforeRemovingDirectory: () -> Void = {}
    ) -> DirectoryRemoval {
        for _ in 0..<passes {
            var info = stat()
            if lstat(path, &info) != 0 { return errno == ENOENT ? .removed : .failed(lastError()) }
            guard (info.st_mode & S_IFMT) == S_IFDIR else { return remove(path) ? .removed : .failed(lastError()) }
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                try? FileManager.default.removeItem(atPath: path + "/" + name)
            }
            beforeRemovingDirectory()
            if Glibc.rmdir(path) == 0 || errno == ENOENT { return .removed }
            let error = lastError()
            guard error.code == .ENOTEMPTY || error.code == .EEXIST else { return .failed(error) }
            let left = (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []
            guard left.allSatisfy({ $0.hasPrefix(temporaryPrefix) }) else { return .failed(error) }
        }
        return .refilled
    }

    /// Closes, retrying nothing (Linux closes even on EINTR).
    static func close(_ fd: Int32) { _ = Glibc.close(fd) }

    // MARK: Extended attributes through a descriptor

    /// Writes the metadata as one packed `user.TIP` attribute (see ``DiskCacheMetadata/packed``).
    static func writeAttributes(_ metadata: DiskCacheMetadata, to fd: Int32) throws(POSIXError) {
        let bytes = metadata.packed
        let name = ExtendedAttributes.namespace + DiskCacheMetadata.packedAttributeName
        let result = bytes.withUnsafeBytes { fsetxattr(fd, name, $0.baseAddress, $0.count, 0) }
        if result != 0 { throw lastError() }
    }

    /// Reads the packed metadata attribute of the open file; nil when absent or malformed.
    static func readAttributes(from fd: Int32) -> DiskCacheMetadata? {
        let name = ExtendedAttributes.namespace + DiskCacheMetadata.packedAttributeName
        return withUnsafeTemporaryAllocation(byteCount: 1024, alignment: 8) { buffer -> DiskCacheMetadata? in
            let got = fgetxattr(fd, name, buffer.baseAddress, buffer.count)
            if got >= 0 { return DiskCacheMetadata(packed: UnsafeRawBufferPointer(rebasing: buffer[0..<got])) }
            guard errno == ERANGE else { return nil }
            let size = fgetxattr(fd, name, nil, 0)
            guard size > 0, size <= 64 * 1024 else { return nil }
            var large = [UInt8](repeating: 0, count: size)
            let read = large.withUnsafeMutableBytes { fgetxattr(fd, name, $0.baseAddress, $0.count) }
            guard read >= 0 else { return nil }
            return large.withUnsafeBytes { DiskCacheMetadata(packed: UnsafeRawBufferPointer(rebasing: $0[0..<read])) }
        }
    }
}
