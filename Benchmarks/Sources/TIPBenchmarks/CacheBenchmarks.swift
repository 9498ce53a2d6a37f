import CTurboJPEGDirect
import Foundation

@testable import TIP

/// The cache rows of the README's benchmark table: rendered lookups, disk hits, start-up with 100,000 entries,
/// and inserts under a full budget. Built with `-enable-testing` (see `run`) to reach the caches.
enum CacheBenchmarks {
    static func run() throws {
        try renderedLookup()
        try diskHit()
        try insertUnderFullBudget()
        try diskStartUp()
    }

    private static func temporaryRoot() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tip-bench-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        return root
    }

    /// 1,000,000 exact-sizing lookups over 1,000 identifiers vs a dictionary behind the same kind of lock.
    static func renderedLookup() throws {
        let root = try temporaryRoot()
        defer { Harness.removeAtExit(root) }
        let configuration = GlobalConfiguration(cachesRootDirectory: root)
        configuration.maxBytesForAllRenderedCaches = 1 << 30
        configuration.maxCountForAllRenderedCaches = 0
        let cache = RenderedCache(domain: configuration.renderedDomain, configuration: configuration)
        defer { cache.tearDown() }
        let image = ImageContainer(image: Bitmap(width: 64, height: 64, format: .rgbx8)!)
        let identifiers = (0..<1_000).map { "https://example.com/images/\($0).jpg" }
        for id in identifiers {
            cache.store(
                image, identifier: id, transformerIdentifier: nil, originalDimensions: CGSize(width: 128, height: 128),
                isPlaceholder: false)
        }
        let dictionary = Locked<[String: ImageContainer]>(
            Dictionary(uniqueKeysWithValues: identifiers.map { ($0, image) }))
        let lookups = 1_000_000
        let target = CGSize(width: 64, height: 64)
        var hits = 0
        let ours = Harness.measure {
            for i in 0..<lookups {
                if cache.image(
                    withIdentifier: identifiers[i % 1_000], targetDimensions: target,
                    targetContentMode: .scaleAspectFit, transformerIdentifier: nil) != nil
                {
                    hits += 1
                }
            }
        }
        let base = Harness.measure {
            for i in 0..<lookups {
                if dictionary.withLock({ $0[identifiers[i % 1_000]] }) != nil { hits += 1 }
            }
        }
        precondition(hits > 0)
        Harness.report(
            """
            rendered-cache lookup, 1M lookups (\(Harness.format(ours.median * 1e6 / Double(lookups), digits: 0)) \
            ns each)
            """,
            ours: ours, baselineName: "locked dictionary", baseline: base, target: nil)
    }

    /// A disk-cache hit for a 1024x576 JPEG decoded to a 400x400 aspect-fit target vs `read(2)` of the
    /// file and TurboJPEG at the same DCT scale.
    static func diskHit() throws {
        let root = try temporaryRoot()
        defer { Harness.removeAtExit(root) }
        let jpeg = try Inputs.fixture("twitterfied.jpg") ?? Inputs.generated(.jpeg, width: 1024, height: 576)
        let configuration = GlobalConfiguration(cachesRootDirectory: root)
        let directory = root.appendingPathComponent("TIPImagePipeline/bench")
        let cache = DiskCache(directory: directory, domain: configuration.diskDomain, configuration: configuration)
        defer { cache.tearDown() }
        cache.waitUntilManifestLoaded()
        let identifier = "https://example.com/twitterfied.jpg"
        let metadata = DiskCacheMetadata(
            identifier: identifier, url: URL(string: identifier)!, lastAccess: Date(), timeToLive: 86_400,
            width: 1024, height: 576, imageType: ImageType.jpeg.rawValue)
        guard cache.updateImageEntry(metadata: metadata, source: .data(jpeg)),
            let part = cache.entry(withIdentifier: identifier)?.complete
        else { throw ImageDecodingError.truncatedData }
        let path = part.filePath
        let options = ImageDecodingOptions(
            targetDimensions: CGSize(width: 400, height: 400), targetContentMode: .scaleAspectFit)
        let decoder = JPEGCodec().decoder
        let ours = try Harness.measure {
            guard let (_, data) = cache.completeData(withIdentifier: identifier) else {
                throw ImageDecodingError.truncatedData
            }
            _ = try decoder.decode(data, options: options)
        }
        let turbo = TurboJPEGDirect()
        let base = Harness.measure {
            let fd = open(path, O_RDONLY)
            var buffer = [UInt8](repeating: 0, count: jpeg.count)
            _ = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            close(fd)
            turbo.decode(Data(buffer), num: 1, denom: 2)
        }
        let full = Harness.measure {
            let fd = open(path, O_RDONLY)
            var buffer = [UInt8](repeating: 0, count: jpeg.count)
            _ = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            close(fd)
            turbo.decode(Data(buffer))
        }
        Harness.report(
            "disk hit, 1024x576 JPEG to 400x225", ours: ours, baselineName: "read(2) + TurboJPEG at 1/2",
            baseline: base, target: 1.2,
            note: "the baseline skips the final resampling pass to 400x225")
        // The same hit at a size DCT scaling reaches exactly (no resampling): what the cache itself costs.
        let exact = ImageDecodingOptions(
            targetDimensions: CGSize(width: 512, height: 288), targetContentMode: .scaleToFill)
        let oursExact = try Harness.measure {
            guard let (_, data) = cache.completeData(withIdentifier: identifier) else {
                throw ImageDecodingError.truncatedData
            }
            _ = try decoder.decode(data, options: exact)
        }
        Harness.report(
            "disk hit, 1024x576 JPEG to 512x288 (exact DCT scale)", ours: oursExact,
            baselineName: "read(2) + TurboJPEG at 1/2", baseline: base, target: 1.2)
        Harness.report(
            "disk hit, 1024x576 JPEG to 400x225", ours: ours, baselineName: "read(2) + full TurboJPEG decode",
            baseline: full, target: nil)
        // The honest limit for this row: the same file read, TurboJPEG at 1/2 and the same final resampling pass.
        let limit = Harness.measure {
            let fd = open(path, O_RDONLY)
            var buffer = [UInt8](repeating: 0, count: jpeg.count)
            _ = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            close(fd)
            let bitmap = turbo.decodeBitmap(Data(buffer), num: 1, denom: 2)
            _ = Resampler.resample(bitmap, width: 400, height: 225)
        }
        Harness.report(
            "disk hit, 1024x576 JPEG to 400x225", ours: ours,
            baselineName: "read(2) + TurboJPEG at 1/2 + the same resampling pass", baseline: limit, target: nil)
        // Every disk hit checks its bytes against the CRC-32 recorded at install (included in the rows above): its
        // share of a hit, against the issue's 3% bound for checking on every read.
        guard let (_, bytes) = cache.completeData(withIdentifier: identifier) else {
            throw ImageDecodingError.truncatedData
        }
        // One CRC takes microseconds: time 100 per sample, so the figure is not the timer's and the scheduler's noise.
        let repeats = 100
        var crc: UInt32 = 0
        let checksum = Samples(
            Harness.measure { for _ in 0..<repeats { crc ^= ContentChecksum.of(bytes) } }.values.map {
                $0 / Double(repeats)
            })
        precondition(crc != 1, "keeps the checksums")
        Harness.report(
            """
            CRC-32 of the hit's file, \(bytes.count / 1_000) KB \
            (\(Harness.format(checksum.median * 1_000, digits: 1)) µs; checked on every disk hit)
            """,
            ours: checksum, baselineName: "the whole disk hit to 400x225", baseline: ours, target: 0.03)
    }

    /// 100,000 inserts into a memory cache whose budget holds 1,000 entries: the last 10,000 inserts
    /// (every one evicting) cost the same as the first 10,000 (none evicting) if eviction is O(1).
    static func insertUnderFullBudget() throws {
        let root = try temporaryRoot()
        defer { Harness.removeAtExit(root) }
        let configuration = GlobalConfiguration(cachesRootDirectory: root)
        configuration.maxBytesForAllMemoryCaches = 1_000 * 1_024
        configuration.maxCountForAllMemoryCaches = 0
        configuration.maxRatioSizeOfCacheEntry = 0
        let payload = Data(repeating: 7, count: 1_024)
        let url = URL(string: "https://example.com/x.jpg")!
        var first: [Double] = [], last: [Double] = []
        for _ in 0..<(Harness.iterations + 1) {
            let cache = MemoryCache(domain: configuration.memoryDomain, configuration: configuration)
            var start = DispatchTime.now().uptimeNanoseconds
            for i in 0..<100_000 {
                if i == 90_000 { start = DispatchTime.now().uptimeNanoseconds }
                _ = cache.updateEntry(
                    MemoryCacheEntry(
                        identifier: "id-\(i)",
                        complete: MemoryCacheCompleteImage(
                            data: payload, imageType: .jpeg, url: url, dimensions: CGSize(width: 10, height: 10))))
                if i == 9_999 {
                    first.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                }
            }
            last.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            precondition(cache.count == 1_000)
            cache.tearDown()
        }
        Harness.report(
            "memory cache: last 10,000 of 100,000 inserts (each evicts)", ours: Samples(Array(last.dropFirst())),
            baselineName: "first 10,000 inserts (none evict)", baseline: Samples(Array(first.dropFirst())), target: 1.5,
            note: "O(1) amortised eviction keeps this near 1")
    }

    /// A disk cache directory with 100,000 entries left by an earlier run: how long until the first
    /// read is served (it must not wait for the manifest) and until the manifest is loaded (≤ 2 s).
    static func diskStartUp() throws {
        let root = try temporaryRoot()
        defer { Harness.removeAtExit(root) }
        let directory = root.appendingPathComponent("TIPImagePipeline/startup", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let count = 100_000
        let populateStart = DispatchTime.now().uptimeNanoseconds
        let payload = Data(repeating: 3, count: 2_000)
        for index in 0..<count {
            let identifier = "https://pbs.example.com/media/image-\(index).jpg"
            let metadata = DiskCacheMetadata(
                identifier: identifier, url: URL(string: identifier)!, lastAccess: Date(),
                timeToLive: 365 * 86_400, width: 640, height: 480, imageType: ImageType.jpeg.rawValue)
            let path = directory.appendingPathComponent(SafeIdentifier.fileName(for: identifier)).path
            let fd = try DiskCacheFiles.create(path)
            try DiskCacheFiles.writeAll(fd, payload)
            try DiskCacheFiles.writeAttributes(metadata, to: fd)
            DiskCacheFiles.close(fd)
        }
        print(
            """
            note: wrote \(count) cache entries in \
            \(Harness.format(Double(DispatchTime.now().uptimeNanoseconds - populateStart) / 1e9)) s
            """
        )
        var loads: [Double] = [], firstReads: [Double] = []
        for _ in 0..<3 {
            let configuration = GlobalConfiguration(cachesRootDirectory: root)
            configuration.maxBytesForAllDiskCaches = 1 << 40
            configuration.maxCountForAllDiskCaches = 0
            let start = DispatchTime.now().uptimeNanoseconds
            let cache = DiskCache(directory: directory, domain: configuration.diskDomain, configuration: configuration)
            let hit = cache.completeData(withIdentifier: "https://pbs.example.com/media/image-\(count / 2).jpg")
            firstReads.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            precondition(hit?.data.count == payload.count, "first read missed")
            cache.waitUntilManifestLoaded()
            loads.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            precondition(cache.count == count, "manifest has \(cache.count) entries")
            cache.tearDown()
        }
        let load = Samples(loads), firstRead = Samples(firstReads)
        Harness.report(
            "disk cache start-up, 100,000 entries: first read", ours: firstRead, baselineName: "manifest load",
            baseline: load, target: nil,
            note:
                """
                manifest loaded in \(Harness.format(load.median / 1000)) s (target ≤ 2 s: \
                \(load.median <= 2_000 ? "met" : "MISSED"))
                """
        )
    }
}
