import Foundation
@testable import TIP

enum StartupProbe {
    static func run(directory: URL) {
        let configuration = GlobalConfiguration(cachesRootDirectory: directory)
        configuration.maxBytesForAllDiskCaches = 1 << 40
        configuration.maxCountForAllDiskCaches = 0
        let cache = DiskCache(directory: directory, domain: configuration.diskDomain, configuration: configuration)
        cache.waitUntilManifestLoaded()
        var t = DispatchTime.now().uptimeNanoseconds
        func lap(_ label: String) { let n = DispatchTime.now().uptimeNanoseconds; print(label, Double(n - t) / 1e6, "ms"); t = n }
        let names = DiskCache.listDirectory(cache.directoryPath)
        lap("list \(names.count)")
        var ok = 0
        for name in names where cache.readPart(fileName: name) != nil { ok += 1 }
        lap("readPart serial \(ok)")
        for name in names { _ = SafeIdentifier.fileName(for: name) }
        lap("safe names")
        for name in names { _ = cache.url(name) }
        lap("urls")
        let m = cache.scanDirectory()
        lap("scanDirectory \(m.entries.count)")
        cache.tearDown()
    }
}
