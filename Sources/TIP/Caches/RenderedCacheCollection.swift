import Foundation

/// The rendered images of one identifier, most recently used first, at most
/// ``maximumItemCount`` of them (TIP's rendered entries collection).
///
/// Not thread-safe: owned by a ``RenderedCache`` and used only under its domain's lock.
final class RenderedCacheCollection {
    /// Most items one identifier keeps: 3.
    static let maximumItemCount = 3

    /// The image identifier.
    let identifier: String
    /// The items, most recently used first.
    private(set) var items: [RenderedCacheItem] = []

    /// An empty collection for `identifier`.
    init(identifier: String) {
        self.identifier = identifier
        items.reserveCapacity(RenderedCacheCollection.maximumItemCount + 1)
    }

    /// Bytes of every item's image.
    var cost: Int64 { items.reduce(0) { $0 + $1.byteCount } }
    /// Whether there is no item.
    var isEmpty: Bool { items.isEmpty }

    /// Adds `item` first, with TIP's rules: an item of equal dimensions and transformer identifier
    /// is kept (and `item` dropped) when it is clean, not less fresh than `item` (HTTP caching), and its
    /// source dimensions are at least as large on both axes; otherwise it is replaced. A fourth item drops
    /// the least recently used one. Returns whether `item` was inserted.
    @discardableResult
    func add(_ item: RenderedCacheItem) -> Bool {
        var index = 0
        while index < items.count {
            let other = items[index]
            if other.dimensions == item.dimensions && other.transformerIdentifier == item.transformerIdentifier {
                let isFresher = other.freshUntil.map { old in item.freshUntil.map { $0 > old } ?? false } ?? false
                if !other.isDirty && !isFresher
                    && other.originalDimensions.width >= item.originalDimensions.width
                    && other.originalDimensions.height >= item.originalDimensions.height
                {
                    return false
                }
                items.remove(at: index)
                continue
            }
            index += 1
        }
        items.insert(item, at: 0)
        if items.count > RenderedCacheCollection.maximumItemCount {
            items.removeLast()
        }
        return true
    }

    /// The first item whose dimensions are what the target sizing produces (TIP's
    /// `sizeMatchesTargetSizing` at scale 1), or that matches its target exactly (processed images), and whose
    /// transformer identifier equals `transformerIdentifier`, moved first; nil without a positive target and a
    /// scaling mode.
    func match(
        targetDimensions: CGSize, contentMode: ContentMode,
        transformerIdentifier: String?
    ) -> (item: RenderedCacheItem, image: ImageContainer)? {
        guard TargetSizing.canScale(targetDimensions: targetDimensions, contentMode: contentMode) else { return nil }
        for index in items.indices {
            let item = items[index]
            guard item.transformerIdentifier == transformerIdentifier,
                item.matchesTargetExactly
                    || TargetSizing.size(
                        item.dimensions, matchesTargetSize: targetDimensions, contentMode: contentMode, scale: 1),
                let image = item.image
            else { continue }
            if index != 0 {
                items.remove(at: index)
                items.insert(item, at: 0)
            }
            return (item, image)
        }
        return nil
    }

    /// Marks the first item (the one ``match(targetDimensions:contentMode:transformerIdentifier:)`` just moved
    /// there) dirty.
    func markFirstItemDirty() {
        if !items.isEmpty { items[0].isDirty = true }
    }

    /// Marks every item dirty.
    func markAllDirty() {
        for index in items.indices { items[index].isDirty = true }
    }

    /// Keeps only weak references to the images.
    func weakify() {
        for index in items.indices { items[index].weakify() }
    }

    /// Holds the images still alive strongly again and drops the others. Returns whether any item is left.
    func strongify() -> Bool {
        items = items.compactMap { item in
            var item = item
            return item.strongify() ? item : nil
        }
        return !items.isEmpty
    }

    /// Drops weak items whose image was released.
    func removeReleasedItems() {
        items.removeAll { $0.image == nil }
    }
}
