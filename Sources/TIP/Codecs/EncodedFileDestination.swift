import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where encoded bytes written "to a path" actually go. A symbolic link is followed, so the link stays and its
/// target gets the image. A path that is not a regular file (a device such as `/dev/stdout` or `/dev/full`, a
/// FIFO, a socket) is written through, never replaced: an atomic write renames a temporary file over the path,
/// which would swap the device node for a file. Only a regular file (or a new path) is written atomically.
enum EncodedFileDestination {
    /// Writes `data` to `path` as described above; throws what the write failed with (`POSIXError` for a special
    /// file).
    static func store(_ data: Data, at path: String, atomic: Bool) throws {
        var target = path
        if let resolved = resolvedExistingPath(path) { target = resolved }
        var info = stat()
        let exists = stat(target, &info) == 0
        if exists && (info.st_mode & S_IFMT) != S_IFREG {
            guard (info.st_mode & S_IFMT) != S_IFDIR else { throw POSIXError(.EISDIR) }
            try writeThrough(data, to: target)
            return
        }
        try data.write(to: URL(fileURLWithPath: target), options: atomic ? [.atomic] : [])
    }

    /// `path` with its symbolic links resolved when it exists (nil when it does not, or is no link at all).
    private static func resolvedExistingPath(_ path: String) -> String? {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFLNK else { return nil }
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Opens the existing special file at `path` for writing (no creation, no truncation of what is no file) and
    /// writes every byte.
    private static func writeThrough(_ data: Data, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw DiskCacheFiles.lastError() }
        defer { close(fd) }
        try DiskCacheFiles.writeAll(fd, data)
    }
}
