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

    /// On the queue, with the manifest loaded.
    func _clearImages(withIdentifierPrefix prefix: String) {
        for (name, entry) in lru.entriesNewestFirst where entry.identifier.hasPrefix(prefix) {
            deleteFiles(of: entry)
            setEntry(nil, forName: name)
        }
    }

    /// Deletes the stored processed images made from `identifier`'s image (``ImageFetchProcessing``): its original
    /// changed (stored, downloaded again, renamed or renamed over), so they no longer show it. Nothing to do, and no
    /// scan, in a cache that never held a processed image.
    func clearProcessedImages(of identifier: String) {
        guard !identifier.isEmpty, !identifier.contains(ImageFetchProcessing.processedMarker) else { return }
        let prefix = ImageFetchProcessing.processedIdentifierPrefix(of: identifier)
        let loaded = domain.sync { () -> Bool in
            guard isLoaded else { return false }
            if mayHoldProcessedImages { _clearImages(withIdentifierPrefix: prefix) }
            return true
        }
        if !loaded { clearImages(withIdentifierPrefix: prefix) }
    }
}
