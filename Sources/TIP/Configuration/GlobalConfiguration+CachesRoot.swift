import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension GlobalConfiguration {
    /// The caches root used when none is given: `$XDG_CACHE_HOME` when it is an absolute path, else `.cache` in
    /// the home directory (`$HOME`, or the user database's entry for the process's user when `HOME` is unset or
    /// relative, as for many systemd services), else the temporary directory.
    static func defaultCachesRootDirectory(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        accountHome: () -> String? = accountHomeDirectory
    ) -> URL {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? accountHome()
        if let home, home.hasPrefix("/") {
            return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".cache", isDirectory: true)
        }
        return FileManager.default.temporaryDirectory
    }

    /// The home directory the user database gives the process's effective user (`getpwuid_r`), or nil.
    static func accountHomeDirectory() -> String? {
        var record = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        let status = getpwuid_r(geteuid(), &record, &buffer, buffer.count, &found)
        guard status == 0, found != nil, let directory = record.pw_dir else { return nil }
        let home = String(cString: directory)
        return home.isEmpty ? nil : home
    }
}
