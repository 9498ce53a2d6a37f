import Foundation

@testable import TIP

/// A private configuration per test (never `GlobalConfiguration.shared`), so cache tests are isolated
/// and can run in parallel. Nothing is written under its caches root.
func makeCacheTestConfiguration(clock: TestClock? = nil) -> GlobalConfiguration {
    let root = FileManager.default.temporaryDirectory
        .appendingPathComponent("tip-cache-tests-\(UUID().uuidString)", isDirectory: true)
    if let clock {
        return GlobalConfiguration(cachesRootDirectory: root, clock: clock.read)
    }
    return GlobalConfiguration(cachesRootDirectory: root)
}

extension LockedCacheDomain {
    /// Sets the budget limits (and prunes, as every limit change does).
    func setLimits(maxBytes: Int64? = nil, maxCount: Int? = nil, ratio: Int? = nil) {
        withLock { $0.setLimits(maxBytes: maxBytes, maxCount: maxCount, maxRatioSizeOfCacheEntry: ratio) }
    }

    /// The budget's live totals.
    var totals: (bytes: Int64, count: Int) {
        withLock { ($0.totalBytes, $0.totalCount) }
    }
}

/// Rendered-cache test images: gray bitmaps, cheap to make, with predictable byte counts.
enum RenderedTestImage {
    /// A `width` x `height` static image.
    static func make(_ width: Int, _ height: Int) -> ImageContainer {
        ImageContainer(image: Bitmap(width: width, height: height, format: .gray8)!)
    }

    /// Bytes a `width` x `height` test image takes.
    static func bytes(_ width: Int, _ height: Int) -> Int64 {
        Int64(Bitmap.byteCount(width: width, height: height, format: .gray8)!)
    }
}

extension RenderedCache {
    /// Stores a real (non-placeholder) image with the given source dimensions (default: its own).
    func store(_ image: ImageContainer, _ identifier: String, transformer: String? = nil, source: CGSize? = nil) {
        store(
            image, identifier: identifier, transformerIdentifier: transformer,
            originalDimensions: source ?? image.dimensions, isPlaceholder: false)
    }

    /// Looks `identifier` up with a scale-to-fill lookup at exactly `dimensions`.
    func exact(_ identifier: String, _ dimensions: CGSize, transformer: String? = nil) -> RenderedCacheHit? {
        image(
            withIdentifier: identifier, targetDimensions: dimensions, targetContentMode: .scaleToFill,
            transformerIdentifier: transformer)
    }

    /// Identifiers most recently used first, as inspection reports them.
    var identifiersNewestFirst: [String] {
        var seen: [String] = []
        for entry in inspectionEntries() where seen.last != entry.identifier { seen.append(entry.identifier) }
        return seen
    }

    /// Bytes of the images inspection reports.
    var inspectedBytes: Int64 { inspectionEntries().reduce(0) { $0 + $1.bytesUsed } }
}

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let now: Locked<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_000_000)) { now = Locked(start) }

    /// The current time.
    var date: Date { now.withLock { $0 } }
    /// Moves the clock forward by `seconds`.
    func advance(_ seconds: TimeInterval) { now.withLock { $0 += seconds } }
    /// The closure a configuration reads the time through.
    var read: @Sendable () -> Date { { [self] in self.date } }
}
