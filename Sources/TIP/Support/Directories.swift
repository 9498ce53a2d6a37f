import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Making a directory with its parents, with the errno that stops it (Foundation's error does not always carry
/// one on Linux).
package enum Directories {
    /// Makes `path` and its missing parents with `mode` (less the umask). Returns nil when `path` is then a
    /// directory, else the error of the first component that could not be made: `ENOTDIR` when one is a file,
    /// `EACCES`, `EROFS`, `ENOENT` (under `/proc`), ...
    package static func make(_ path: String, mode: mode_t) -> POSIXErrorCode? {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += "/" + component
            if mkdir(prefix, mode) == 0 { continue }
            let failure = errno
            var info = stat()
            guard stat(prefix, &info) == 0 else { return POSIXErrorCode(rawValue: failure) ?? .EIO }
            guard info.st_mode & S_IFMT == S_IFDIR else { return .ENOTDIR }
        }
        return nil
    }
}
