import Foundation

@testable import TIP

/// Memory-cache test values: variants whose bytes and URLs are easy to tell apart.
enum MemoryTestValue {
    static func url(_ name: String) -> URL { URL(string: "https://example.com/\(name)")! }

    /// A complete variant of `width` x `height` with `bytes` bytes of `fill`.
    static func complete(
        _ width: Int, _ height: Int, url: String = "a", bytes: Int = 100, fill: UInt8 = 1,
        placeholder: Bool = false, ttl: TimeInterval = MemoryCacheCompleteImage.defaultTimeToLive,
        updateExpiryOnAccess: Bool = true
    ) -> MemoryCacheCompleteImage {
        MemoryCacheCompleteImage(
            data: Data(repeating: fill, count: bytes), imageType: .jpeg, url: self.url(url),
            dimensions: CGSize(width: width, height: height), isPlaceholder: placeholder,
            timeToLive: ttl, updateExpiryOnAccess: updateExpiryOnAccess)
    }

    /// A partial download of `width` x `height` holding `bytes` of `expected` bytes.
    static func partial(
        _ width: Int, _ height: Int, url: String = "a", bytes: Int = 40, expected: Int = 400,
        fill: UInt8 = 9, placeholder: Bool = false,
        ttl: TimeInterval = MemoryCacheCompleteImage.defaultTimeToLive,
        updateExpiryOnAccess: Bool = true
    ) -> MemoryCachePartialImage {
        MemoryCachePartialImage(
            data: Data(repeating: fill, count: bytes), url: self.url(url),
            dimensions: CGSize(width: width, height: height), expectedLength: expected,
            lastModified: "Wed, 21 Oct 2015 07:28:00 GMT", entityTag: "\"v1\"",
            isPlaceholder: placeholder, timeToLive: ttl, updateExpiryOnAccess: updateExpiryOnAccess)
    }
}

extension MemoryCache {
    /// Stores a complete variant under `identifier`.
    @discardableResult
    func put(
        _ identifier: String, _ complete: MemoryCacheCompleteImage? = nil, partial: MemoryCachePartialImage? = nil,
        force: Bool = false
    ) -> Bool {
        updateEntry(
            MemoryCacheEntry(identifier: identifier, complete: complete, partial: partial),
            forciblyReplaceExisting: force)
    }

    /// The entry without refreshing it.
    func peek(_ identifier: String) -> MemoryCacheEntry? { entry(withIdentifier: identifier, touch: false) }

    /// Identifiers of the entries that have a complete variant, most recently used first.
    var identifiersNewestFirst: [String] { inspectionEntries().complete.map(\.identifier) }

    /// Bytes inspection reports.
    var inspectedBytes: Int64 {
        let (complete, partial) = inspectionEntries()
        return (complete + partial).reduce(0) { $0 + $1.bytesUsed }
    }
}
