import Foundation
import Testing

@testable import TIP

@Suite("Rendered cache rules")
struct RenderedCacheRuleTests {
    let configuration = makeCacheTestConfiguration()
    let cache: RenderedCache

    init() {
        configuration.renderedDomain.setLimits(maxBytes: 1 << 30, maxCount: 0, ratio: 0)
        cache = RenderedCache(domain: configuration.renderedDomain, configuration: configuration)
    }

    @Test("A stored image is found at its size with its source dimensions, clean")
    func storeAndHit() throws {
        let image = RenderedTestImage.make(40, 30)
        cache.store(image, "a", source: CGSize(width: 400, height: 300))
        let hit = try #require(cache.exact("a", CGSize(width: 40, height: 30)))
        #expect(hit.image === image)
        #expect(hit.originalDimensions == CGSize(width: 400, height: 300))
        #expect(!hit.isDirty)
        #expect(cache.exact("b", CGSize(width: 40, height: 30)) == nil)
        #expect(cache.exact("a", CGSize(width: 41, height: 30)) == nil)
        #expect(cache.totalBytes == RenderedTestImage.bytes(40, 30))
        #expect(cache.count == 1)
        #expect(configuration.renderedDomain.totals == (RenderedTestImage.bytes(40, 30), 1))
    }

    @Test("Placeholders are refused")
    func placeholders() {
        cache.store(
            RenderedTestImage.make(10, 10), identifier: "a", transformerIdentifier: nil,
            originalDimensions: CGSize(width: 10, height: 10), isPlaceholder: true)
        #expect(cache.exact("a", CGSize(width: 10, height: 10)) == nil)
        #expect(cache.count == 0 && cache.totalBytes == 0)
    }

    @Test("Lookups need a positive target and a scaling mode", arguments: ContentMode.allCases)
    func lookupNeedsScalingTarget(mode: ContentMode) {
        let image = RenderedTestImage.make(20, 20)
        cache.store(image, "a")
        let hit = cache.image(
            withIdentifier: "a", targetDimensions: CGSize(width: 20, height: 20), targetContentMode: mode,
            transformerIdentifier: nil)
        #expect((hit != nil) == mode.doesScale)
        for target in [
            CGSize.zero, CGSize(width: 20, height: 0), CGSize(width: 0, height: 20), CGSize(width: -20, height: -20),
        ] {
            #expect(
                cache.image(
                    withIdentifier: "a", targetDimensions: target, targetContentMode: mode,
                    transformerIdentifier: nil) == nil)
        }
    }

    /// Each row: stored dimensions, target, mode, whether TIP's sizing match (scale 1) accepts it.
    static let sizingCases: [(stored: CGSize, target: CGSize, mode: ContentMode, matches: Bool)] = [
        (CGSize(width: 100, height: 67), CGSize(width: 100, height: 100), .scaleAspectFit, true),
        (CGSize(width: 100, height: 67), CGSize(width: 100, height: 100), .scaleAspectFill, false),
        (CGSize(width: 100, height: 67), CGSize(width: 100, height: 100), .scaleToFill, false),
        (CGSize(width: 100, height: 67), CGSize(width: 100, height: 67), .scaleToFill, true),
        (CGSize(width: 100, height: 67), CGSize(width: 67, height: 67), .scaleAspectFill, true),
        (CGSize(width: 100, height: 67), CGSize(width: 67, height: 67), .scaleAspectFit, false),
        (CGSize(width: 100, height: 67), CGSize(width: 200, height: 67), .scaleAspectFit, true),
        (CGSize(width: 100, height: 67), CGSize(width: 200, height: 67), .scaleAspectFill, false),
        (CGSize(width: 100, height: 67), CGSize(width: 100, height: 30), .scaleAspectFill, true),
        (CGSize(width: 67, height: 100), CGSize(width: 100, height: 100), .scaleAspectFit, true),
        (CGSize(width: 67, height: 100), CGSize(width: 100, height: 100), .scaleAspectFill, false),
        (CGSize(width: 64, height: 64), CGSize(width: 64, height: 64), .scaleAspectFit, true),
        (CGSize(width: 64, height: 64), CGSize(width: 64, height: 64), .scaleAspectFill, true),
        (CGSize(width: 64, height: 64), CGSize(width: 64, height: 64), .scaleToFill, true),
        (CGSize(width: 64, height: 64), CGSize(width: 64, height: 32), .scaleAspectFit, false),
        (CGSize(width: 64, height: 64), CGSize(width: 64, height: 32), .scaleAspectFill, true),
        (CGSize(width: 64, height: 64), CGSize(width: 32, height: 64), .scaleAspectFill, true),
        (CGSize(width: 64, height: 64), CGSize(width: 65, height: 64), .scaleToFill, false),
    ]

    @Test("Lookups match TIP's sizing rule for the three scaling modes", arguments: sizingCases.indices)
    func sizingMatch(index: Int) {
        let row = Self.sizingCases[index]
        // The expectation in the table agrees with TargetSizing itself.
        #expect(
            TargetSizing.size(row.stored, matchesTargetSize: row.target, contentMode: row.mode, scale: 1) == row.matches
        )
        let image = RenderedTestImage.make(Int(row.stored.width), Int(row.stored.height))
        cache.store(image, "a")
        let hit = cache.image(
            withIdentifier: "a", targetDimensions: row.target, targetContentMode: row.mode,
            transformerIdentifier: nil)
        #expect((hit?.image === image) == row.matches)
    }

    @Test("Transformer identifiers must be equal; nil matches only untransformed images")
    func transformerMatching() throws {
        let plain = RenderedTestImage.make(30, 30)
        let blurred = RenderedTestImage.make(30, 30)
        cache.store(plain, "a")
        cache.store(blurred, "a", transformer: "blur")
        #expect(cache.inspectionEntries().count == 2)
        let size = CGSize(width: 30, height: 30)
        #expect(try #require(cache.exact("a", size)).image === plain)
        #expect(try #require(cache.exact("a", size, transformer: "blur")).image === blurred)
        #expect(cache.exact("a", size, transformer: "sharpen") == nil)
        #expect(cache.exact("a", size, transformer: "") == nil)
        // Storing again under "blur" follows the equal-size rule only against the "blur" item.
        let blurred2 = RenderedTestImage.make(30, 30)
        cache.store(blurred2, "a", transformer: "blur", source: CGSize(width: 300, height: 300))
        #expect(try #require(cache.exact("a", size, transformer: "blur")).image === blurred2)
        #expect(try #require(cache.exact("a", size)).image === plain)
        #expect(cache.inspectionEntries().count == 2)
    }

    @Test("At most three images per identifier; the least recently used one drops")
    func threeItems() throws {
        let images = (1...5).map { RenderedTestImage.make(10 * $0, 10 * $0) }
        func size(_ i: Int) -> CGSize { CGSize(width: 10 * (i + 1), height: 10 * (i + 1)) }
        for i in 0..<4 { cache.store(images[i], "a") }
        #expect(cache.inspectionEntries().map(\.dimensions) == [size(3), size(2), size(1)])
        #expect(cache.exact("a", size(0)) == nil)
        #expect(cache.totalBytes == (1...3).reduce(0) { $0 + RenderedTestImage.bytes(10 * ($1 + 1), 10 * ($1 + 1)) })
        // A hit moves the image first, so the next store drops image 2, not image 1.
        #expect(try #require(cache.exact("a", size(1))).image === images[1])
        #expect(cache.inspectionEntries().map(\.dimensions) == [size(1), size(3), size(2)])
        cache.store(images[4], "a")
        #expect(cache.inspectionEntries().map(\.dimensions) == [size(4), size(1), size(3)])
        #expect(cache.exact("a", size(2)) == nil)
        #expect(cache.count == 1)
        #expect(cache.totalBytes == cache.inspectedBytes)
        #expect(configuration.renderedDomain.totals.bytes == cache.totalBytes)
    }

    /// Source dimensions of a second store of the same size, against an existing item with source
    /// 200 x 100, and whether the existing item survives when clean.
    static let sourceCases: [(source: CGSize, existingSurvivesWhenClean: Bool)] = [
        (CGSize(width: 100, height: 50), true),
        (CGSize(width: 200, height: 100), true),
        (CGSize(width: 200, height: 50), true),
        (CGSize(width: 100, height: 100), true),
        (CGSize(width: 201, height: 100), false),
        (CGSize(width: 200, height: 101), false),
        (CGSize(width: 300, height: 50), false),
        (CGSize(width: 100, height: 150), false),
        (CGSize(width: 400, height: 200), false),
    ]

    @Test(
        "Equal size and transformer: a clean item with source dimensions >= on both axes survives, else it is replaced",
        arguments: sourceCases.indices, [false, true])
    func equalSizeReplacement(index: Int, dirty: Bool) throws {
        let row = Self.sourceCases[index]
        let existing = RenderedTestImage.make(20, 10)
        let other = RenderedTestImage.make(8, 4)
        cache.store(existing, "a", source: CGSize(width: 200, height: 100))
        cache.store(other, "a")
        if dirty { cache.dirtyImages(withIdentifier: "a") }
        let newcomer = RenderedTestImage.make(20, 10)
        cache.store(newcomer, "a", source: row.source)
        let survives = row.existingSurvivesWhenClean && !dirty
        let hit = try #require(cache.exact("a", CGSize(width: 20, height: 10)))
        #expect(hit.image === (survives ? existing : newcomer))
        #expect(hit.originalDimensions == (survives ? CGSize(width: 200, height: 100) : row.source))
        #expect(hit.isDirty == (survives ? dirty : false))
        // Never two items of equal size and transformer; the other item is untouched.
        #expect(cache.inspectionEntries().count == 2)
        #expect(try #require(cache.exact("a", CGSize(width: 8, height: 4))).isDirty == dirty)
        #expect(cache.totalBytes == RenderedTestImage.bytes(20, 10) + RenderedTestImage.bytes(8, 4))
    }

    @Test("Dirty flow: dirty hits serve previews until a clean store of that size replaces them")
    func dirtyFlow() throws {
        let small = RenderedTestImage.make(16, 16)
        let large = RenderedTestImage.make(32, 32)
        cache.store(small, "a", source: CGSize(width: 64, height: 64))
        cache.store(large, "a", source: CGSize(width: 64, height: 64))
        cache.dirtyImages(withIdentifier: "a")
        cache.dirtyImages(withIdentifier: "missing")
        let dirtyHit = try #require(cache.exact("a", CGSize(width: 16, height: 16)))
        #expect(dirtyHit.isDirty && dirtyHit.image === small)
        // A clean store of the same size with smaller source dimensions still replaces the dirty one.
        let fresh = RenderedTestImage.make(16, 16)
        cache.store(fresh, "a", source: CGSize(width: 32, height: 32))
        let cleanHit = try #require(cache.exact("a", CGSize(width: 16, height: 16)))
        #expect(!cleanHit.isDirty && cleanHit.image === fresh)
        #expect(cleanHit.originalDimensions == CGSize(width: 32, height: 32))
        // The other size stays dirty.
        #expect(try #require(cache.exact("a", CGSize(width: 32, height: 32))).isDirty)
        // A clean item now survives an equal store again.
        cache.store(RenderedTestImage.make(16, 16), "a", source: CGSize(width: 32, height: 32))
        #expect(try #require(cache.exact("a", CGSize(width: 16, height: 16))).image === fresh)
    }

    @Test("Clearing one identifier or everything subtracts exactly")
    func clearing() {
        cache.store(RenderedTestImage.make(10, 10), "a")
        cache.store(RenderedTestImage.make(20, 20), "a")
        cache.store(RenderedTestImage.make(30, 30), "b")
        #expect(
            configuration.renderedDomain.totals == (
                RenderedTestImage.bytes(10, 10) + RenderedTestImage.bytes(20, 20) + RenderedTestImage.bytes(30, 30), 2
            ))
        cache.clearImages(withIdentifier: "a")
        cache.clearImages(withIdentifier: "missing")
        #expect(cache.exact("a", CGSize(width: 10, height: 10)) == nil)
        #expect(configuration.renderedDomain.totals == (RenderedTestImage.bytes(30, 30), 1))
        #expect(cache.totalBytes == RenderedTestImage.bytes(30, 30) && cache.count == 1)
        cache.clearAll()
        #expect(configuration.renderedDomain.totals == (0, 0))
        #expect(cache.totalBytes == 0 && cache.count == 0 && cache.inspectionEntries().isEmpty)
        cache.store(RenderedTestImage.make(10, 10), "c")
        #expect(cache.count == 1)
    }

    @Test("Inspection lists one entry per image with its bytes, dimensions, URL and image")
    func inspection() {
        let url = URL(string: "https://example.com/a.jpg")!
        let image = RenderedTestImage.make(12, 7)
        cache.store(
            image, identifier: "a", transformerIdentifier: nil, originalDimensions: CGSize(width: 120, height: 70),
            isPlaceholder: false, url: url)
        cache.store(RenderedTestImage.make(5, 5), "b")
        let entries = cache.inspectionEntries()
        #expect(entries.map(\.identifier) == ["b", "a"])
        let a = entries[1]
        #expect(
            a.url == url && a.dimensions == CGSize(width: 12, height: 7)
                && a.bytesUsed == RenderedTestImage.bytes(12, 7))
        #expect(a.progress == 1 && a.image === image && a.timeToLive == nil)
        #expect(entries[0].url == nil)
    }

    @Test("Lookups and stores move the identifier to the head of the LRU")
    func recency() {
        configuration.renderedDomain.setLimits(maxCount: 2)
        cache.store(RenderedTestImage.make(10, 10), "a")
        cache.store(RenderedTestImage.make(10, 10), "b")
        #expect(cache.identifiersNewestFirst == ["b", "a"])
        // A lookup touches the identifier even when no image of that size matches (as TIP).
        _ = cache.exact("a", CGSize(width: 99, height: 99))
        #expect(cache.identifiersNewestFirst == ["a", "b"])
        cache.store(RenderedTestImage.make(10, 10), "c")
        #expect(cache.identifiersNewestFirst == ["c", "a"])
        // A store whose image is dropped (an equal clean item survives) still refreshes the identifier.
        cache.store(RenderedTestImage.make(10, 10), "a")
        cache.store(RenderedTestImage.make(10, 10), "d")
        #expect(cache.identifiersNewestFirst == ["d", "a"])
        #expect(configuration.renderedDomain.totals.count == 2)
    }
}
