import Foundation

extension DiskCache {
    /// Deletes the entries whose identifier starts with `prefix` (an image's processed variants). While the manifest
    /// loads, this happens once it has loaded (the identifiers are in the manifest, not in the file names).
    func clearImages(withIdentifierPrefix prefix: String) {
        guard !prefix.isEmpty else { return }
        let loaded = domain.sync { () -> Bool in
            guard isLoaded else { return false }
            _clearImages(withIdentifierPrefix: prefix)
            return true
        }
        guard !loaded else { return }
        loadGroup.notify(queue: .global(qos: .utility)) { [self] in
            domain.async { [self] in _clearImages(withIdentifierPrefix: prefix) }
        }
    }

    /// On the queue, with the manifest loaded.
    private func _clearImages(withIdentifierPrefix prefix: String) {
        for (name, entry) in lru.entriesNewestFirst where entry.identifier.hasPrefix(prefix) {
            deleteFiles(of: entry)
            setEntry(nil, forName: name)
        }
    }
}
