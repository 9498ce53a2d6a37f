import Foundation

@testable import TIP

/// A private caches root, injected clock, problem recorder and disk domain for one disk-cache test.
final class DiskCacheTestEnvironment: Sendable {
    let root: URL
    let configuration: GlobalConfiguration
    let domain: DiskCacheDomain
    let clock = DiskTestClock()
    let recorder = RecordingProblemObserver()

    init(maxBytes: Int64 = 64 * 1024 * 1024, maxCount: Int = 0, ratio: Int = 0) {
        root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tip-disk-\(UUID().uuidString)", isDirectory: true)
        try? FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let clock = self.clock
        configuration = GlobalConfiguration(cachesRootDirectory: root, clock: { clock.now })
        configuration.problemObserver = recorder
        domain = DiskCacheDomain(
            budget: CacheBudget(maxBytes: maxBytes, maxCount: maxCount, maxRatioSizeOfCacheEntry: ratio))
    }

    deinit {
        _ = chmod(root.path, 0o755)
        try? FileManager.default.removeItem(at: root)
    }

    /// `<root>/TIPImagePipeline/<name>`.
    func directory(_ name: String = "test") -> URL {
        root.appendingPathComponent("TIPImagePipeline/\(name)", isDirectory: true)
    }

    /// A cache whose manifest is loaded.
    func cache(_ name: String = "test", storage: DiskCache.MetadataStorage? = nil) -> DiskCache {
        let cache = DiskCache(
            directory: directory(name), domain: domain, configuration: configuration, metadataStorage: storage)
        cache.waitUntilManifestLoaded()
        return cache
    }

    func advance(_ seconds: TimeInterval) { clock.advance(seconds) }
    var date: Date { clock.now }

    /// Metadata with test defaults.
    func metadata(
        _ identifier: String, url: String? = nil, width: Int = 100, height: Int = 100, ttl: TimeInterval = 3_600,
        placeholder: Bool = false, updatesExpiry: Bool = true, lastModified: String? = "Mon, 01 Jan 2024 00:00:00 GMT",
        entityTag: String? = nil, expectedLength: Int64 = 0
    ) -> DiskCacheMetadata {
        DiskCacheMetadata(
            identifier: identifier, url: URL(string: url ?? "https://example.com/\(identifier.utf8.count)/img.jpg")!,
            lastAccess: date, timeToLive: ttl, updatesExpiryOnAccess: updatesExpiry, width: width, height: height,
            isAnimated: false, isPlaceholder: placeholder, lastModified: lastModified, entityTag: entityTag,
            expectedLength: expectedLength, imageType: "public.jpeg")
    }

    /// Names in the cache directory, sorted.
    func files(_ name: String = "test") -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory(name).path)) ?? []).sorted()
    }

    /// Sum of the sizes of entry data files (not sidecars, not temporary files).
    func dataBytes(_ name: String = "test", storage: DiskCache.MetadataStorage) -> Int64 {
        files(name).filter { !$0.contains("#") }.reduce(0) { sum, file in
            let attributes = try? FileManager.default.attributesOfItem(
                atPath: directory(name).appendingPathComponent(file).path)
            return sum + ((attributes?[.size] as? NSNumber)?.int64Value ?? 0)
        }
    }

    /// Whether this process ignores file permissions (root).
    static var permissionsAreIgnored: Bool { geteuid() == 0 }
}

/// Deterministic test bytes.
func diskTestBytes(_ count: Int, seed: UInt8 = 1) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &* 7) })
}

/// An injectable clock.
final class DiskTestClock: Sendable {
    private let date = Locked(Date(timeIntervalSinceReferenceDate: 700_000_000))
    var now: Date { date.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { date.withLock { $0 += seconds } }
}
