import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opening, making and growing table files. A table is `<name>.tiptable` in the store's directory, next to
/// `<name>.tiptable.lock`, which the open table holds (`flock`) so that a second process cannot open it too.
enum ImageTableFile {
    /// An opened table file.
    struct Opened {
        let mapping: ImageTableMapping
        /// Chunks in the file now.
        let chunkCount: Int
        /// Why the file was made anew, when an existing one could not be used (nil: opened, or first made).
        let rebuildReason: String?
    }

    /// Takes the lock of the table at `path` (a symbolic link in place of the lock file is an error).
    static func lock(_ path: String) throws(ImageTableError) -> ImageTableLock {
        let lockPath = path + ".lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { throw .storageFailed(path: lockPath, operation: "open", errno: errno) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            close(descriptor)
            if code == EWOULDBLOCK { throw .tableInUse(path: path) }
            throw .storageFailed(path: lockPath, operation: "flock", errno: code)
        }
        return ImageTableLock(descriptor: descriptor)
    }

    /// Opens the table at `path` for `header`, or makes it when it is missing, damaged, truncated, or made for
    /// another format (then `rebuildReason` says which).
    static func openOrMake(_ path: String, header: [UInt8], layout: ImageTableLayout, lock: ImageTableLock)
        throws(ImageTableError) -> Opened
    {
        // A symbolic link in its place is replaced, never followed: its target is not the store's.
        let descriptor = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)
        if descriptor < 0 {
            let code = errno
            guard code == ENOENT || code == ELOOP else {
                throw .storageFailed(path: path, operation: "open", errno: code)
            }
            let reason = code == ELOOP ? "a symbolic link, not a table file" : nil
            return try make(path, header: header, layout: layout, lock: lock, reason: reason)
        }
        if let reason = problem(descriptor, header: header, layout: layout) {
            close(descriptor)
            return try make(path, header: header, layout: layout, lock: lock, reason: reason)
        }
        let length = fileLength(descriptor)
        // A copied file may have holes where entries were never written (cp makes them sparse): their blocks
        // are allocated now, so that a full disk is this error rather than a crash when one is first drawn.
        #if os(Linux)
        let allocation = posix_fallocate(descriptor, 0, off_t(length))
        guard allocation == 0 || allocation == EOPNOTSUPP else {
            close(descriptor)
            throw .storageFailed(path: path, operation: "allocate the table's blocks", errno: allocation)
        }
        #endif
        let mapping = try ImageTableMapping(
            descriptor: descriptor, length: layout.maximumFileLength, path: path, lock: lock)
        return Opened(
            mapping: mapping, chunkCount: (length - ImageTableLayout.headerLength) / layout.chunkLength,
            rebuildReason: nil)
    }

    /// Makes an empty table at `path` (aside, then renamed over whatever is there) and maps it.
    static func make(
        _ path: String, header: [UInt8], layout: ImageTableLayout, lock: ImageTableLock, reason: String?
    ) throws(ImageTableError) -> Opened {
        let temporary = path + ".new"
        // Made anew, never opened through whatever is there (a leftover, or a planted symbolic link).
        unlink(temporary)
        let descriptor = open(temporary, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .storageFailed(path: temporary, operation: "create", errno: errno) }
        func fail(_ operation: String) -> ImageTableError {
            let code = errno
            close(descriptor)
            unlink(temporary)
            return .storageFailed(path: path, operation: operation, errno: code)
        }
        let written = header.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        guard written == header.count else { throw fail("write header") }
        guard ftruncate(descriptor, off_t(ImageTableLayout.headerLength)) == 0 else { throw fail("ftruncate") }
        guard fsync(descriptor) == 0 else { throw fail("fsync") }
        guard rename(temporary, path) == 0 else { throw fail("rename") }
        synchronizeDirectory(of: path)
        let mapping = try ImageTableMapping(
            descriptor: descriptor, length: layout.maximumFileLength, path: path, lock: lock)
        return Opened(mapping: mapping, chunkCount: 0, rebuildReason: reason)
    }

    /// Adds one chunk to the file (its blocks allocated now, so that a full disk is an error here rather
    /// than a crash when a page of the mapping is first written).
    static func grow(_ mapping: ImageTableMapping, from chunks: Int, layout: ImageTableLayout) throws(ImageTableError) {
        let start = layout.fileLength(chunks: chunks)
        #if os(Linux)
        let code = posix_fallocate(mapping.descriptor, off_t(start), off_t(layout.chunkLength))
        #else
        let code = ftruncate(mapping.descriptor, off_t(start + layout.chunkLength)) == 0 ? 0 : errno
        #endif
        guard code == 0 else {
            _ = ftruncate(mapping.descriptor, off_t(start))
            throw .storageFailed(path: mapping.path, operation: "allocate a chunk", errno: code)
        }
    }

    /// The record block of `chunk`, read with `pread` (not through the mapping, so opening a large table
    /// does not make its pages resident).
    static func records(of chunk: Int, in mapping: ImageTableMapping, layout: ImageTableLayout) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: layout.recordsLength)
        let offset = off_t(layout.chunkOffset(chunk))
        let read = bytes.withUnsafeMutableBytes { pread(mapping.descriptor, $0.baseAddress, $0.count, offset) }
        if read != layout.recordsLength { bytes.removeAll() }
        return bytes
    }

    /// Why the open file cannot be used as is, or nil.
    private static func problem(_ descriptor: Int32, header: [UInt8], layout: ImageTableLayout) -> String? {
        let length = fileLength(descriptor)
        guard length >= ImageTableLayout.headerLength else {
            return "truncated: \(length) bytes, shorter than the header"
        }
        var stored = [UInt8](repeating: 0, count: ImageTableHeader.length)
        let read = stored.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard read == ImageTableHeader.length else { return "unreadable header" }
        switch ImageTableHeader.verdict(stored, expected: header) {
        case .corrupt: return "corrupt header"
        case .formatChanged: return "format changed"
        case .valid: break
        }
        let chunkBytes = length - ImageTableLayout.headerLength
        guard chunkBytes % layout.chunkLength == 0 else {
            return "truncated: \(length) bytes is not a whole number of chunks"
        }
        guard chunkBytes / layout.chunkLength <= layout.maximumChunkCount else {
            return "corrupt: longer than the format allows"
        }
        return nil
    }

    private static func fileLength(_ descriptor: Int32) -> Int {
        var info = stat()
        return fstat(descriptor, &info) == 0 ? Int(info.st_size) : 0
    }

    private static func synchronizeDirectory(of path: String) {
        let directory = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            fsync(directory)
            close(directory)
        }
    }
}
