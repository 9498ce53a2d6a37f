import Foundation

#if canImport(Glibc)
import Glibc
#endif

// Whether a cache directory can hold files at all, with the errno that says why not: an unusable caches root (a
// file, `/proc`, a read-only directory) otherwise shows up only as fetches that cache nothing.
extension DiskCache {
    /// Why `path` cannot hold cache files, or nil when it can. The directory is made (0700, parents included)
    /// when missing, then a probe file is created and removed in it; the first failing call's errno is the
    /// answer (`ENOTDIR` when a component is a file, `EACCES`, `EROFS`, `ENOENT` in `/proc`, ...).
    static func directoryError(_ path: String) -> POSIXErrorCode? {
        if let failure = Directories.make(path, mode: 0o700) { return failure }
        let probe =
            path + "/" + DiskCacheFiles.temporaryPrefix + "probe-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(probe, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return POSIXErrorCode(rawValue: errno) ?? .EIO }
        close(fd)
        unlink(probe)
        return nil
    }

    /// Checks this cache's directory once (at the pipeline's stand-up): when it cannot hold files, the real errno
    /// goes to the problem observer (``Problem/diskCacheDirectoryUnusable``) and the logger. Returns the error.
    @discardableResult
    func reportIfDirectoryUnusable(pipelineIdentifier: String) -> POSIXErrorCode? {
        guard let code = DiskCache.directoryError(directoryPath) else { return nil }
        let reason = String(cString: strerror(code.rawValue))
        configuration.post(
            .diskCacheDirectoryUnusable,
            userInfo: [
                ProblemInfoKey.path: directoryPath,
                ProblemInfoKey.error: "\(code) (\(code.rawValue))",
                ProblemInfoKey.errno: Int(code.rawValue),
            ], level: .error,
            message: "the disk cache of image pipeline '\(pipelineIdentifier)' cannot use \(directoryPath): "
                + "\(code) (\(code.rawValue), \(reason)); its images are cached in memory only. Set "
                + "GlobalConfiguration.shared.cachesRootDirectory to a writable directory before creating pipelines.")
        return code
    }
}
