import Foundation

// HTTP revalidation of a complete file: a `304 Not Modified` renews its freshness (and validators) in its
// metadata, without writing its bytes again.
extension DiskCache {
    /// Changes the metadata of `identifier`'s complete file when `accepts` takes it, rewrites it in place (the
    /// file's bytes stay) and moves the entry to the head of the LRU; returns the part as changed. Nil when there
    /// is no complete file (its TTL ran out: it is deleted), `accepts` refused it, or the file vanished (it is
    /// forgotten). A rewrite that fails otherwise (read-only or full disk) is logged: the file keeps its old
    /// metadata, and the part returned still carries the change (its bytes are as good as the server said).
    func updateCompleteMetadata(
        withIdentifier identifier: String, accepts: (DiskCacheMetadata) -> Bool,
        _ change: (inout DiskCacheMetadata) -> Void
    ) -> DiskCacheEntry.Part? {
        domain.sync {
            guard !identifier.isEmpty else { return nil }
            let name = SafeIdentifier.fileName(for: identifier)
            guard var entry = currentEntry(name), var part = entry.complete else { return nil }
            let now = configuration.clock()
            if part.metadata.isExpired(at: now) {
                deleteFile(name)
                entry.complete = nil
                setEntry(entry, forName: name, bump: false)
                return nil
            }
            var metadata = part.metadata
            if metadata.identifier.isEmpty { metadata.identifier = identifier }
            guard accepts(metadata) else { return nil }
            change(&metadata)
            if metadata.updatesExpiryOnAccess { metadata.lastAccess = now }
            do throws(POSIXError) {
                try rewriteMetadata(metadata, of: name)
            } catch {
                guard error.code != .ENOENT && error.code != .ELOOP else {
                    deleteFile(name)
                    entry.complete = nil
                    setEntry(entry, forName: name, bump: false)
                    return nil
                }
                configuration.log(.warning, "disk cache could not renew \(name) after a revalidation: \(error.code)")
                part.metadata = metadata
                return part
            }
            part.metadata = metadata
            entry.complete = part
            setEntry(entry, forName: name, bump: metadata.updatesExpiryOnAccess)
            return part
        }
    }
}
