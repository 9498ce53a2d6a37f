import Foundation
import TIP

/// Support for the crash-consistency harness (`TIPCacheCrashHarness`), an executable that writes
/// disk-cache entries in a loop until a test kills it with SIGKILL. A test-support target, not part of the
/// `TIP` product: it reaches the disk cache through `package` access, so the harness builds in debug and
/// release without `@testable`.
public enum DiskCacheCrashHarnessSupport {
    /// The bytes the harness stores for `url`: a pure function of the URL (its version query picks the
    /// size), framed by a length and an FNV checksum so a torn or mixed-up file is recognisable.
    public static func content(for url: URL) -> [UInt8] {
        var state = fnv(Array(url.absoluteString.utf8))
        let length = 64 + Int(state % 48_000)
        var out = [UInt8]()
        out.reserveCapacity(length + 16)
        withUnsafeBytes(of: UInt64(length).littleEndian) { out += $0 }
        for _ in 0..<length {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            out.append(UInt8(truncatingIfNeeded: state >> 33))
        }
        withUnsafeBytes(of: fnv(out).littleEndian) { out += $0 }
        return out
    }

    /// The URL of version `version` of `identifier`.
    public static func url(identifier: String, version: Int) -> URL {
        var components = URLComponents()
        components.scheme = "https"
        components.host = "harness.invalid"
        components.path = "/" + identifier
        components.queryItems = [URLQueryItem(name: "v", value: String(version))]
        return components.url ?? URL(fileURLWithPath: "/harness/\(version)")
    }

    /// Writes entries into `directory` forever (stores, downloads, partials, renames, clears, reads),
    /// deterministic for `seed`. With `sidecar`, metadata goes to sidecar files.
    public static func run(directory: String, sidecar: Bool, seed: UInt64) -> Never {
        let root = URL(fileURLWithPath: directory, isDirectory: true)
        let configuration = GlobalConfiguration(cachesRootDirectory: root)
        let domain = DiskCacheDomain(
            budget: CacheBudget(maxBytes: 1_500_000, maxCount: 40, maxRatioSizeOfCacheEntry: 0))
        let cache = DiskCache(
            directory: root, domain: domain, configuration: configuration,
            metadataStorage: sidecar ? .sidecar : .extendedAttributes)
        var random = seed | 1
        func next(_ bound: Int) -> Int {
            random ^= random << 13
            random ^= random >> 7
            random ^= random << 17
            return Int(random % UInt64(bound))
        }
        var version = Int(seed % 1_000) * 1_000
        while true {
            version += 1
            let identifier = "id-\(next(48))"
            let url = url(identifier: identifier, version: version)
            let bytes = content(for: url)
            let metadata = DiskCacheMetadata(
                identifier: identifier, url: url, lastAccess: Date(), timeToLive: 3_600,
                width: 10 + next(50), height: 10 + next(50), lastModified: "Mon, 01 Jan 2024 00:00:00 GMT",
                imageType: "public.jpeg")
            switch next(20) {
            case 0..<8:
                cache.updateImageEntry(metadata: metadata, source: .data(Data(bytes)), forced: next(2) == 0)
            case 8..<12:
                guard let file = try? cache.openTemporaryFile(forIdentifier: identifier) else { continue }
                var offset = 0
                while offset < bytes.count {
                    let end = min(bytes.count, offset + 1 + next(9_000))
                    try? file.append(Data(bytes[offset..<end]))
                    offset = end
                }
                file.finalize(metadata: metadata, complete: true)
            case 12..<15:
                guard let file = try? cache.openTemporaryFile(forIdentifier: identifier) else { continue }
                let cut = 1 + next(bytes.count - 1)
                try? file.append(Data(bytes[0..<cut]))
                var partial = metadata
                partial.expectedLength = Int64(bytes.count)
                partial.width += 60
                file.finalize(metadata: partial, complete: false)
            case 15:
                try? cache.changeIdentifier(from: identifier, to: "id-\(next(48))")
            case 16:
                cache.clearImage(withIdentifier: identifier)
            default:
                _ = cache.completeData(withIdentifier: identifier)
            }
        }
    }

    /// Opens a disk cache on `directory` and returns its entry count, bytes and the seconds its
    /// manifest took to load (a benchmark of start-up).
    public static func measureManifestLoad(directory: String, sidecar: Bool) -> (
        entries: Int, bytes: Int64, seconds: Double
    ) {
        let root = URL(fileURLWithPath: directory, isDirectory: true)
        let configuration = GlobalConfiguration(cachesRootDirectory: root)
        let domain = DiskCacheDomain(
            budget: CacheBudget(maxBytes: Int64.max / 4, maxCount: 0, maxRatioSizeOfCacheEntry: 0))
        let start = DispatchTime.now()
        let cache = DiskCache(
            directory: root, domain: domain, configuration: configuration,
            metadataStorage: sidecar ? .sidecar : .extendedAttributes)
        cache.waitUntilManifestLoaded()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        defer { cache.tearDown() }
        return (cache.count, cache.totalBytes, seconds)
    }

    /// Fills `directory` with `count` small complete entries (TTL one year) for
    /// ``measureManifestLoad(directory:sidecar:)``.
    public static func populate(directory: String, sidecar: Bool, count: Int) {
        let root = URL(fileURLWithPath: directory, isDirectory: true)
        let configuration = GlobalConfiguration(cachesRootDirectory: root)
        let domain = DiskCacheDomain(
            budget: CacheBudget(maxBytes: Int64.max / 4, maxCount: 0, maxRatioSizeOfCacheEntry: 0))
        let cache = DiskCache(
            directory: root, domain: domain, configuration: configuration,
            metadataStorage: sidecar ? .sidecar : .extendedAttributes)
        cache.waitUntilManifestLoaded()
        for index in 0..<count {
            let identifier = "https://pbs.example.com/media/image-\(index).jpg"
            let metadata = DiskCacheMetadata(
                identifier: identifier, url: url(identifier: identifier, version: index), lastAccess: Date(),
                timeToLive: 365 * 86_400, width: 640, height: 480, imageType: "public.jpeg")
            cache.updateImageEntry(
                metadata: metadata, source: .data(Data(repeating: UInt8(truncatingIfNeeded: index), count: 2_000)))
        }
        cache.tearDown()
    }

    private static func fnv(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0100_0000_01b3 }
        return hash
    }
}
