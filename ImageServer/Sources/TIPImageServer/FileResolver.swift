import Foundation
import NIOCore

/// Maps request paths onto regular files inside a directory, refusing anything that could leave it.
enum FileResolver {
    /// The file under `root` (an already resolved real path) that the raw request path `rawPath` names, or
    /// `nil` when the path is malformed, escapes the directory (`..`, encoded slashes or backslashes, NUL,
    /// symbolic links that lead outside) or does not name a regular file (a trailing `/` never does).
    static func resolve(rawPath: String, root: String) -> String? {
        guard rawPath.hasPrefix("/") else { return nil }
        let lowered = rawPath.lowercased()
        for banned in ["%2f", "%5c", "%00"] where lowered.contains(banned) {
            return nil
        }
        guard let decoded = rawPath.removingPercentEncoding,
            !decoded.contains("\\"), !decoded.contains("\0"), !decoded.hasSuffix("/")
        else { return nil }
        let components = decoded.split(separator: "/", omittingEmptySubsequences: true)
        guard !components.isEmpty, !components.contains(where: { $0 == "." || $0 == ".." }) else { return nil }
        let joined = root + "/" + components.joined(separator: "/")
        guard let real = realPath(joined), real.hasPrefix(root + "/") else { return nil }
        var info = stat()
        guard stat(real, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return real
    }

    /// The contents of the regular file at `path` and its modification time (seconds since 1970), or `nil`
    /// when it cannot be opened, is not a regular file, or changes size while being read.
    static func read(_ path: String) -> (ByteBuffer, Int)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int(info.st_size)
        var buffer = ByteBufferAllocator().buffer(capacity: size)
        while buffer.readableBytes < size {
            let remaining = size - buffer.readableBytes
            let count = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: remaining) { raw in
                let wanted = min(raw.count, remaining)
                let result = Glibc.read(descriptor, raw.baseAddress, wanted)
                return max(result, 0)
            }
            if count == 0 { return nil }
        }
        return (buffer, Int(info.st_mtim.tv_sec))
    }

    /// The canonical absolute path of `path` with every symbolic link resolved, or `nil`.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
