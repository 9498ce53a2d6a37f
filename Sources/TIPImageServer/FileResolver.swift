import Foundation

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

    /// The canonical absolute path of `path` with every symbolic link resolved, or `nil`.
    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
