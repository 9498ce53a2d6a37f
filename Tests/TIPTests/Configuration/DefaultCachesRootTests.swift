import Foundation
import Testing

@testable import TIP

@Suite("Default caches root")
struct DefaultCachesRootTests {
    @Test(
        "XDG_CACHE_HOME, else HOME's .cache, else the user database's home (HOME unset or relative)",
        arguments: [
            (["XDG_CACHE_HOME": "/var/cache/svc", "HOME": "/home/a"], "/var/cache/svc"),
            (["XDG_CACHE_HOME": "relative", "HOME": "/home/a"], "/home/a/.cache"),
            (["HOME": "/home/a"], "/home/a/.cache"),
            ([:], "/srv/account/.cache"),
            (["HOME": ""], "/srv/account/.cache"),
            (["HOME": "relative"], "/srv/account/.cache"),
        ])
    func resolution(environment: [String: String], expected: String) {
        let root = GlobalConfiguration.defaultCachesRootDirectory(environment: environment) { "/srv/account" }
        #expect(root.path == expected)
    }

    @Test("Without any home, the temporary directory")
    func noHome() {
        let root = GlobalConfiguration.defaultCachesRootDirectory(environment: [:]) { nil }
        #expect(root.standardizedFileURL.path == FileManager.default.temporaryDirectory.standardizedFileURL.path)
    }

    @Test("The user database gives this process's user an absolute home")
    func accountHome() throws {
        let home = try #require(GlobalConfiguration.accountHomeDirectory())
        #expect(home.hasPrefix("/"))
        #expect(FileManager.default.fileExists(atPath: home))
    }
}
