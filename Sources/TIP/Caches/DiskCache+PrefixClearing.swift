import Foundation

extension DiskCache {
    /// Deletes the entries whose identifier starts with `prefix` (an image's processed variants). While the manifest
    /// loads, this happens once it has loaded (the identifiers are in the manifest, not in the file names), and reads
    /// miss those entries meanwhile.
    func clearImages(withIdentifierPrefix prefix: String) {
        guard !prefix.isEmpty else { return }
        let loaded = domain.sync { () -> Bool in
            guard isLoaded else {
                prefixesClearedWhileLoading.append(prefix)  // reads miss them meanwhile (currentEntry)
                return false
            }
            _clearImages(withIdentifierPrefix: prefix)
            return true
        }
        guard !loaded else { return }
        loadGroup.notify(queue: .global(qos: .utility)) { [self] in
            domain.async { [self] in
                // Normally applied as the manifest finished loading; not again (an image stored since then stays).
                guard let index = prefixesClearedWhileLoading.firstIndex(of: prefix) else { return }
                prefixesClearedWhileLoading.remove(at: index)
                _clearImages(withIdentifierPrefix: prefix)
            }
        }
    }

    /// On the queue, with the manifest loaded. An original's processed images (the prefix every caller passes) come
    /// from the index of processed entries; any other prefix takes a walk over every entry.
    func _clearImages(withIdentifierPrefix prefix: String) {
        let marker = ImageFetchProcessing.processedMarker
        // An identifier starts with original + marker exactly when its first marker follows `original`: the marker
        // (one "#", then no other) cannot overlap a copy of itself, and `original` holds none.
        if prefix.hasSuffix(marker), case let original = String(prefix.dropLast(marker.count)),
            original.firstRange(of: marker) == nil
        {
            let names = processedEntryNames[original] ?? []
            // Entries known only by their hashed names are rare: the original's file name only when there are any.
            let unattached =
                unattachedProcessedEntryNames.isEmpty
                ? [] : unattachedProcessedEntryNames[SafeIdentifier.fileName(for: original)] ?? []
            for name in names.union(unattached) {
                guard let entry = lru.peek(name) else { continue }
                deleteFiles(of: entry)
                setEntry(nil, forName: name)
            }
            return
        }
        for (name, entry) in lru.entriesNewestFirst where entry.identifier.hasPrefix(prefix) {
            deleteFiles(of: entry)
            setEntry(nil, forName: name)
        }
    }

    /// Whether `entry`, read from its files while the manifest loads, falls under a prefix cleared meanwhile: by its
    /// identifier, or, for a processed image known only by its hashed name, by its original's file name. On the queue.
    func isClearedWhileLoading(_ entry: DiskCacheEntry) -> Bool {
        if prefixesClearedWhileLoading.contains(where: { entry.identifier.hasPrefix($0) }) { return true }
        guard case .originalName(let file)? = Self.processedLink(of: entry) else { return false }
        let marker = ImageFetchProcessing.processedMarker
        return prefixesClearedWhileLoading.contains {
            $0.hasSuffix(marker) && SafeIdentifier.fileName(for: String($0.dropLast(marker.count))) == file
        }
    }

    /// The identifier of the original that the stored processed image `identifier` was made from: what precedes the
    /// first ``ImageFetchProcessing/processedMarker``; nil when it has none (not a processed image).
    static func originalIdentifier(ofProcessed identifier: String) -> String? {
        // Most identifiers lack the marker's first byte ("#", a character no other is equivalent to): a byte scan
        // rules them out before the search by characters.
        guard let first = ImageFetchProcessing.processedMarker.utf8.first, identifier.utf8.contains(first) else {
            return nil
        }
        return identifier.firstRange(of: ImageFetchProcessing.processedMarker).map {
            String(identifier[..<$0.lowerBound])
        }
    }

    /// What ties a stored processed image to its original in the indexes.
    enum ProcessedLink: Equatable {
        /// The original's identifier (``processedEntryNames``).
        case original(String)
        /// The original's file name, for an entry known only by its hashed name (``unattachedProcessedEntryNames``).
        case originalName(String)
    }

    /// The link of `entry` to the original it was made from; nil when it is not a processed image.
    static func processedLink(of entry: DiskCacheEntry) -> ProcessedLink? {
        if let original = originalIdentifier(ofProcessed: entry.identifier) { return .original(original) }
        let name = entry.complete?.metadata.originalName ?? entry.partial?.metadata.originalName
        return name.map { .originalName($0) }
    }

    /// Keeps ``processedEntryNames`` and ``unattachedProcessedEntryNames`` in step with the entry `name`, which goes
    /// from `old` to `new` (nil: no entry). On the queue.
    func indexProcessedEntry(_ name: String, from old: DiskCacheEntry?, to new: DiskCacheEntry?) {
        let before = old.flatMap(Self.processedLink), after = new.flatMap(Self.processedLink)
        guard before != after else { return }
        switch before {
        case .original(let original)?: Self.remove(name, from: &processedEntryNames, at: original)
        case .originalName(let file)?: Self.remove(name, from: &unattachedProcessedEntryNames, at: file)
        case nil: break
        }
        switch after {
        case .original(let original)?: processedEntryNames[original, default: []].insert(name)
        case .originalName(let file)?: unattachedProcessedEntryNames[file, default: []].insert(name)
        case nil: break
        }
    }

    private static func remove(_ name: String, from index: inout [String: Set<String>], at key: String) {
        index[key]?.remove(name)
        if index[key]?.isEmpty == true { index[key] = nil }
    }

    /// Deletes the stored processed images made from `identifier`'s image (``ImageFetchProcessing``): its original
    /// changed (stored, downloaded again, renamed or renamed over), so they no longer show it. A lookup in the index
    /// of processed entries, not a walk over every entry.
    func clearProcessedImages(of identifier: String) {
        guard !identifier.isEmpty, !identifier.contains(ImageFetchProcessing.processedMarker) else { return }
        let prefix = ImageFetchProcessing.processedIdentifierPrefix(of: identifier)
        let loaded = domain.sync { () -> Bool in
            guard isLoaded else { return false }
            _clearImages(withIdentifierPrefix: prefix)
            return true
        }
        if !loaded { clearImages(withIdentifierPrefix: prefix) }
    }
}
