import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Reading the disk cache: lookups with lazy TTL expiry and access refresh, file contents, copies out.
extension DiskCache {
    /// The entry for `identifier`, or nil on a miss. Expired parts (now − last access > TTL, on the
    /// configuration's clock) are deleted and missed. A hit refreshes each part's last access (metadata
    /// rewritten) and moves the entry to the head of the LRU — unless the part was stored with
    /// `updatesExpiryOnAccess == false`, then neither. While the manifest loads only complete files are
    /// served (read straight from disk). `refreshes` false: nothing is refreshed (a fetch with
    /// ``ImageFetchOptions/doNotResetExpiryOnAccess``); expired parts still go.
    func entry(
        withIdentifier identifier: String, includeComplete: Bool = true, includePartial: Bool = true,
        refreshes: Bool = true
    ) -> DiskCacheEntry? {
        guard !identifier.isEmpty else { return nil }
        return entry(
            withIdentifier: identifier, safeName: SafeIdentifier.fileName(for: identifier),
            includeComplete: includeComplete, includePartial: includePartial, refreshes: refreshes)
    }

    /// ``entry(withIdentifier:includeComplete:includePartial:)`` with the identifier's safe name already made
    /// (`SafeIdentifier.fileName(for: identifier)`): a lookup across every pipeline's disk cache makes it once.
    func entry(
        withIdentifier identifier: String, safeName name: String, includeComplete: Bool = true,
        includePartial: Bool = true, refreshes: Bool = true
    ) -> DiskCacheEntry? {
        domain.sync {
            guard !identifier.isEmpty else { return nil }
            guard var entry = currentEntry(name) else { return nil }
            if !isLoaded { entry.partial = nil }
            var changed = false
            if entry.identifier != identifier {
                // A hashed name whose identifier was too long to store: re-attach the real one.
                let stored = entry
                entry.identifier = identifier
                entry.complete?.metadata.identifier = identifier
                entry.partial?.metadata.identifier = identifier
                if isLoaded {
                    lru.updateValue(entry, for: name)
                    indexProcessedEntry(name, from: stored, to: entry)
                }
            }
            let now = configuration.clock()
            var refreshed = false
            touchPart(
                &entry.complete, fileName: name, refreshing: includeComplete && refreshes, now: now, changed: &changed,
                refreshed: &refreshed)
            touchPart(
                &entry.partial, fileName: DiskCache.partialName(name), refreshing: includePartial && refreshes,
                now: now,
                changed: &changed, refreshed: &refreshed)
            if isLoaded {
                // While loading, a partial we did not look at stays as it is on disk.
                if changed || refreshed { setEntry(entry, forName: name, bump: refreshed) }
            } else if changed {
                setEntry(entry, forName: name)
            }
            if !includeComplete { entry.complete = nil }
            if !includePartial { entry.partial = nil }
            return entry.isEmpty ? nil : entry
        }
    }

    /// Rewrites the last access of an installed file; false when the file is gone (then it is forgotten).
    private func refresh(_ metadata: DiskCacheMetadata, fileName: String) -> Bool {
        do {
            try rewriteMetadata(metadata, of: fileName)
            return true
        } catch {
            if error.code == .ENOENT || error.code == .ELOOP {
                deleteFile(fileName)
                return false
            }
            // The file is still there and served; only the refresh was lost (read-only directory, full disk).
            configuration.log(.warning, "disk cache could not refresh \(fileName): \(error.code)")
            return true
        }
    }

    /// The bytes of a part's file (memory-mapped from 64 KiB), or nil when it is gone or not a regular
    /// file. Any thread; the bytes stay valid after the file is replaced or evicted.
    func data(of part: DiskCacheEntry.Part) -> Data? {
        guard let fd = try? DiskCacheFiles.open(part.filePath, O_RDONLY | O_NONBLOCK) else { return nil }
        defer { DiskCacheFiles.close(fd) }
        return DiskCacheFiles.readAll(fd, mapLargeFiles: true)
    }

    /// The complete image bytes for `identifier` (a lookup with access refresh, then the file read).
    package func completeData(withIdentifier identifier: String) -> (metadata: DiskCacheMetadata, data: Data)? {
        guard let part = entry(withIdentifier: identifier, includePartial: false)?.complete,
            let bytes = completeData(of: part)
        else { return nil }
        return (part.metadata, bytes)
    }

    /// The bytes of a complete part from an earlier lookup (no second lookup or access refresh); a file
    /// that vanished meanwhile is forgotten, one whose length or checksum no longer match its metadata is
    /// removed and reported (nil either way).
    func completeData(of part: DiskCacheEntry.Part) -> Data? {
        guard let bytes = data(of: part) else {
            forgetVanishedPart(identifier: part.metadata.identifier, partial: false)
            return nil
        }
        if let mismatch = part.metadata.contentMismatch(in: bytes) {
            removeDamagedPart(part, partial: false, mismatch: mismatch)
            return nil
        }
        return bytes
    }

    /// Removes a part whose bytes did not match its metadata and reports ``Problem/diskCacheEntryDamaged`` — only
    /// when the part is still the one installed (a file replaced since the lookup is simply missed this time).
    func removeDamagedPart(_ part: DiskCacheEntry.Part, partial: Bool, mismatch: DiskCacheMetadata.ContentMismatch) {
        let removed = domain.sync { removeIfInstalled(part, partial: partial) }
        if removed { reportDamagedPart(part, mismatch: mismatch) }
    }

    /// Deletes `part`'s file and forgets it when it is still the installed one (on the domain queue).
    func removeIfInstalled(_ part: DiskCacheEntry.Part, partial: Bool) -> Bool {
        let identifier = part.metadata.identifier
        guard !identifier.isEmpty else { return false }
        let name = SafeIdentifier.fileName(for: identifier)
        guard var entry = currentEntry(name) else { return false }
        let installed = partial ? entry.partial : entry.complete
        guard let installed, installed.filePath == part.filePath,
            installed.metadata.contentChecksum == part.metadata.contentChecksum,
            installed.metadata.contentLength == part.metadata.contentLength
        else { return false }
        deleteFile(part.fileName)
        if partial { entry.partial = nil } else { entry.complete = nil }
        setEntry(entry.isEmpty ? nil : entry, forName: name, bump: false)
        return true
    }

    /// Reports ``Problem/diskCacheEntryDamaged`` for a removed part.
    func reportDamagedPart(_ part: DiskCacheEntry.Part, mismatch: DiskCacheMetadata.ContentMismatch) {
        configuration.post(
            .diskCacheEntryDamaged,
            userInfo: [
                ProblemInfoKey.imageIdentifier: part.metadata.identifier,
                ProblemInfoKey.imageURL: part.metadata.url,
                ProblemInfoKey.path: part.filePath,
                ProblemInfoKey.error: mismatch.description,
            ], level: .error,
            message:
                "disk cache file \(part.filePath) was damaged (\(mismatch)); removed, the image is fetched again")
    }

    /// Drops a part whose file disappeared behind our back, so the totals match the files.
    func forgetVanishedPart(identifier: String, partial: Bool) {
        domain.sync {
            guard !identifier.isEmpty else { return }
            let name = SafeIdentifier.fileName(for: identifier)
            guard var entry = currentEntry(name) else { return }
            let fileName = partial ? DiskCache.partialName(name) : name
            guard DiskCacheFiles.regularFileInfo(atPath: path(fileName)) == nil else { return }
            deleteFile(fileName)
            if partial { entry.partial = nil } else { entry.complete = nil }
            setEntry(entry, forName: name, bump: false)
        }
    }

    /// Copies `identifier`'s complete file to a new temporary file outside the cache (the caller
    /// deletes it). Missing, or damaged (removed and reported) ⇒ `POSIXError(.ENOENT)`.
    func copyCompleteFile(withIdentifier identifier: String) throws(POSIXError) -> URL {
        guard let part = entry(withIdentifier: identifier, includePartial: false)?.complete else {
            throw POSIXError(.ENOENT)
        }
        let source = try DiskCacheFiles.open(part.filePath, O_RDONLY | O_NONBLOCK)
        defer { DiskCacheFiles.close(source) }
        guard DiskCacheFiles.regularFileInfo(source) != nil,
            let bytes = DiskCacheFiles.readAll(source, mapLargeFiles: true)
        else { throw POSIXError(.ENOENT) }
        if let mismatch = part.metadata.contentMismatch(in: bytes) {
            removeDamagedPart(part, partial: false, mismatch: mismatch)
            throw POSIXError(.ENOENT)
        }
        let temporaryDirectory = DiskCache.normalizedTemporaryDirectory()
        let target = temporaryDirectory + "/tip-disk-copy-" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        let fd = try DiskCacheFiles.create(target)
        defer { DiskCacheFiles.close(fd) }
        do throws(POSIXError) {
            try DiskCacheFiles.writeAll(fd, bytes)
        } catch {
            DiskCacheFiles.remove(target)
            throw error
        }
        // TIP's contract for the copy: its metadata as TIP's own `user.` attributes, whatever form the cache keeps.
        // A file system without user attributes still gets the bytes.
        let attributes = ExtendedAttributes(path: target)
        var metadata = part.metadata
        metadata.lastModified = nil  // TIP keeps validators with partial entries only
        metadata.expectedLength = 0
        for (key, bytes) in metadata.tipAttributeValues {
            do throws(ExtendedAttributes.Failure) { try attributes.set(key, bytes: bytes) } catch { break }
        }
        return URL(fileURLWithPath: target, isDirectory: false)
    }

    private static func normalizedTemporaryDirectory() -> String {
        var path = FileManager.default.temporaryDirectory.path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// What the cache holds, for ``ImagePipeline/inspect(_:)`` (empty while the manifest loads).
    func inspectionEntries() -> (
        complete: [ImagePipelineInspectionResult.Entry], partial: [ImagePipelineInspectionResult.Entry]
    ) {
        domain.sync {
            var complete: [ImagePipelineInspectionResult.Entry] = []
            var partial: [ImagePipelineInspectionResult.Entry] = []
            for (_, entry) in lru.entriesNewestFirst {
                if let part = entry.complete {
                    complete.append(inspection(entry.identifier, part, progress: 1))
                }
                if let part = entry.partial {
                    let expected = max(part.metadata.expectedLength, 1)
                    partial.append(
                        inspection(
                            entry.identifier, part,
                            progress: min(0.999, Float(Double(part.byteCount) / Double(expected)))))
                }
            }
            return (complete, partial)
        }
    }

    private func inspection(_ identifier: String, _ part: DiskCacheEntry.Part, progress: Float)
        -> ImagePipelineInspectionResult.Entry
    {
        let metadata = part.metadata
        return ImagePipelineInspectionResult.Entry(
            identifier: identifier, url: metadata.url,
            dimensions: CGSize(width: metadata.width, height: metadata.height),
            bytesUsed: part.byteCount, progress: progress, timeToLive: metadata.timeToLive,
            lastAccess: metadata.lastAccess,
            imageType: metadata.imageType.map(ImageType.init(rawValue:)), isAnimated: metadata.isAnimated,
            isPlaceholder: metadata.isPlaceholder, updatesExpiryOnAccess: metadata.updatesExpiryOnAccess,
            expectedLength: metadata.expectedLength > 0 ? metadata.expectedLength : nil,
            lastModified: metadata.lastModified, entityTag: metadata.entityTag)
    }

    /// Lazy TTL and access refresh for one part of an entry (on the queue): an expired part's file is
    /// deleted and the part dropped; otherwise, when `refreshing` and the part slides its expiry, its
    /// last access becomes `now` (the part is dropped if its metadata cannot be rewritten).
    private func touchPart(
        _ part: inout DiskCacheEntry.Part?, fileName: String, refreshing: Bool, now: Date,
        changed: inout Bool, refreshed: inout Bool
    ) {
        guard let current = part else { return }
        if current.metadata.isExpired(at: now) {
            deleteFile(fileName)
            part = nil
            changed = true
        } else if current.metadata.updatesExpiryOnAccess && refreshing {
            var metadata = current.metadata
            metadata.lastAccess = now
            if refresh(metadata, fileName: fileName) {
                part?.metadata = metadata
                refreshed = true
            } else {
                part = nil
            }
            changed = true
        }
    }
}
