import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writing the disk cache: stores (TIP's `updateImageEntry`), downloads finalized from temporary
/// files, identifier changes and clearing. Every change runs on the domain queue.
extension DiskCache {
    /// Stores a complete image (stores, propagation from memory, copies from other pipelines) with
    /// TIP's `updateImageEntry` tie-break: replaces an existing complete file when `forced`, when the
    /// old one is a placeholder and the new one is not, or, when both are placeholders or both are not (a placeholder
    /// never replaces a real image), when the new area is larger or equal and the URL or dimensions differ. Then the
    /// per-entry cap (`budget.maxBytesPerEntry`): an oversize image is not kept (the replaced file is gone too) and
    /// `imageTooLargeToStoreInDiskCache` is posted.
    /// `metadata.lastAccess` is set to now and `expectedLength` to 0. A partial survives only when its
    /// area is strictly larger. Returns whether the image was stored.
    ///
    /// The bytes are written (and fsynced when writes are durable) to a temporary file off the domain queue (unless
    /// called on it), between two short turns on the queue: one that decides and reserves the temporary name, one
    /// that decides again (the entry may have changed meanwhile) and renames the file into place.
    @discardableResult
    package func updateImageEntry(metadata input: DiskCacheMetadata, source: Source, forced: Bool = false) -> Bool {
        // The empty identifier has no file name (it would name the directory itself).
        guard !input.identifier.isEmpty else { return reportNoFileName(for: input) }
        var metadata = input
        metadata.expectedLength = 0
        let name = SafeIdentifier.fileName(for: metadata.identifier)
        let size: Int64
        switch source {
        case .data(let data): size = Int64(data.count)
        case .file(let url):
            guard let info = DiskCacheFiles.regularFileInfo(atPath: url.path) else { return false }
            size = info.size
        }
        // Turn 1: decide, apply the cap, reserve a temporary name.
        let reserved: String? = domain.sync {
            guard decideStore(metadata, name: name, size: size, forced: forced) else { return nil }
            guard ensureDirectory() else {
                // The real reason (EACCES, ENOTDIR, EROFS...), not the ENOENT that sent us here.
                let code = DiskCache.directoryError(directoryPath) ?? .ENOENT
                reportWriteFailure(POSIXError(code), path: directoryPath, identifier: metadata.identifier)
                return nil
            }
            let temporary = DiskCacheFiles.temporaryName()
            liveTemporaryNames.insert(temporary)
            return temporary
        }
        guard let temporary = reserved else { return false }
        // Off the queue: write and flush the private temporary file; checksum bytes already in memory.
        let written = writeTemporaryFile(temporary, source: source)
        let contents: DiskCacheMetadata.Contents? =
            switch source {
            case .data(let data):
                DiskCacheMetadata.Contents(length: Int64(data.count), checksum: ContentChecksum.of(data))
            case .file: nil
            }
        // Turn 2: decide again and install.
        return domain.sync {
            liveTemporaryNames.remove(temporary)
            let fd: Int32
            switch written {
            case .success(let descriptor):
                fd = descriptor
            case .failure(let error):
                DiskCacheFiles.remove(path(temporary))
                reportWriteFailure(error, path: path(name), identifier: metadata.identifier)
                return false
            }
            defer { DiskCacheFiles.close(fd) }
            guard let actualSize = DiskCacheFiles.regularFileInfo(fd)?.size,
                decideStore(metadata, name: name, size: actualSize, forced: forced)
            else {
                DiskCacheFiles.remove(path(temporary))
                return false
            }
            metadata.lastAccess = configuration.clock()
            var entry = currentEntry(name) ?? DiskCacheEntry(identifier: metadata.identifier)
            let part: DiskCacheEntry.Part
            let released = releaseFileName(name, installingPartial: false)
            do throws(POSIXError) {
                part = try install(temporaryName: temporary, fd: fd, metadata: metadata, contents: contents, as: name)
            } catch {
                restoreFileName(released)
                DiskCacheFiles.remove(path(temporary))
                if !(error.code == .ENOENT && ensureDirectory()) {
                    reportWriteFailure(error, path: path(name), identifier: metadata.identifier)
                }
                return false
            }
            entry.identifier = metadata.identifier
            entry.complete = part
            if let partial = entry.partial, partial.metadata.area <= metadata.area {
                deleteFile(DiskCache.partialName(name))
                entry.partial = nil
            }
            setEntry(entry, forName: name)
            if !isTornDown { domain.budget.prune(priorityCache: self) }
            return true
        }
    }

    /// TIP's `updateImageEntry` decision for a complete image of `size` bytes (on the queue). When the
    /// image would replace the current one but is over the per-entry cap, the current complete file is
    /// deleted (as TIP, which writes and then drops the oversize file) and the problem posted.
    private func decideStore(_ metadata: DiskCacheMetadata, name: String, size: Int64, forced: Bool) -> Bool {
        var entry = currentEntry(name)
        if let old = entry?.complete?.metadata {
            let replace =
                forced
                || (old.isPlaceholder && !metadata.isPlaceholder)
                || (old.isPlaceholder == metadata.isPlaceholder && metadata.area >= old.area
                    && (old.url != metadata.url || old.width != metadata.width || old.height != metadata.height))
            guard replace else { return false }
        }
        guard domain.budget.maxBytes > 0 else { return false }
        guard size <= domain.budget.maxBytesPerEntry else {
            if entry?.complete != nil {
                deleteFile(name)
                entry?.complete = nil
                setEntry(entry, forName: name, bump: false)
            }
            reportTooLarge(metadata)
            return false
        }
        return true
    }

    /// Posts `imageTooLargeToStoreInDiskCache` for the image `metadata` describes.
    private func reportTooLarge(_ metadata: DiskCacheMetadata) {
        configuration.post(
            .imageTooLargeToStoreInDiskCache,
            userInfo: [
                ProblemInfoKey.imageIdentifier: metadata.identifier,
                ProblemInfoKey.imageURL: metadata.url,
                ProblemInfoKey.dimensions: CGSize(width: metadata.width, height: metadata.height),
            ])
    }

    /// Creates and fills the reserved temporary file (flushed when writes are durable); returns its open descriptor.
    private func writeTemporaryFile(_ temporary: String, source: Source) -> Result<Int32, POSIXError> {
        let fd: Int32
        do throws(POSIXError) {
            fd = try DiskCacheFiles.create(path(temporary))
        } catch {
            return .failure(error)
        }
        do throws(POSIXError) {
            switch source {
            case .data(let data):
                try DiskCacheFiles.writeAll(fd, data)
            case .file(let url):
                let input = try DiskCacheFiles.open(url.path, O_RDONLY | O_NONBLOCK)
                defer { DiskCacheFiles.close(input) }
                guard DiskCacheFiles.regularFileInfo(input) != nil else { throw POSIXError(.EINVAL) }
                try DiskCacheFiles.copy(from: input, to: fd)
            }
            try flushIfDurable(fd)
            return .success(fd)
        } catch {
            DiskCacheFiles.close(fd)
            return .failure(error)
        }
    }

    /// A new temporary file in the cache directory for downloading `identifier`: append bytes from
    /// any queue, then finalize it as complete or partial (or discard it).
    package func openTemporaryFile(forIdentifier identifier: String) throws(POSIXError) -> DiskCacheTemporaryFile {
        let result: Result<DiskCacheTemporaryFile, POSIXError> = domain.sync {
            ensureDirectory()
            let name = DiskCacheFiles.temporaryName()
            let fd: Int32
            do throws(POSIXError) {
                fd = try DiskCacheFiles.create(path(name))
            } catch {
                reportWriteFailure(error, path: path(name), identifier: identifier)
                return .failure(error)
            }
            liveTemporaryNames.insert(name)
            return .success(
                DiskCacheTemporaryFile(cache: self, identifier: identifier, name: name, fd: fd, byteCount: 0))
        }
        return try result.get()
    }

    /// A temporary file for `identifier` like ``openTemporaryFile(forIdentifier:)``, but created only when it is
    /// first written, seeded or finalized, on whichever queue does that: a download that finishes small writes
    /// its whole body at the commit, off the downloader's queue, which then does no file work for it at all.
    /// A failure to create it is reported then, and the download goes on without the file.
    func reserveTemporaryFile(forIdentifier identifier: String) -> DiskCacheTemporaryFile {
        let name = DiskCacheFiles.temporaryName()
        domain.sync { _ = liveTemporaryNames.insert(name) }
        return DiskCacheTemporaryFile(cache: self, identifier: identifier, deferredName: name)
    }

    /// A temporary file seeded with a copy of `identifier`'s partial download (to resume it), or nil
    /// when there is no partial or `accepting` refuses its metadata (checked before anything is copied).
    /// Its ``DiskCacheTemporaryFile/byteCount`` is the partial's size. A partial whose bytes no longer match its
    /// recorded length and checksum is removed and reported instead.
    func copyPartialToTemporaryFile(
        withIdentifier identifier: String,
        accepting: (DiskCacheMetadata) -> Bool = { _ in true }
    ) -> (file: DiskCacheTemporaryFile, partial: DiskCacheEntry.Part)? {
        waitForManifestIfPartialExists(identifier: identifier)
        return domain.sync {
            guard isLoaded, let partial = entry(withIdentifier: identifier, includeComplete: false)?.partial,
                accepting(partial.metadata),
                let source = try? DiskCacheFiles.open(partial.filePath, O_RDONLY | O_NONBLOCK)
            else { return nil }
            defer { DiskCacheFiles.close(source) }
            // The partial's bytes are checked against its recorded length and checksum before a download builds on
            // them.
            guard let bytes = DiskCacheFiles.readAll(source, mapLargeFiles: true) else { return nil }
            if let mismatch = partial.metadata.contentMismatch(in: bytes) {
                if removeIfInstalled(partial, partial: true) { reportDamagedPart(partial, mismatch: mismatch) }
                return nil
            }
            guard let file = try? openTemporaryFile(forIdentifier: identifier) else { return nil }
            do throws(POSIXError) {
                try file.withDescriptor { (fd) throws(POSIXError) in try DiskCacheFiles.writeAll(fd, bytes) }
                let copied = Int64(bytes.count)
                // The partial's recorded checksum was just verified against these bytes: the file continues from it.
                file.seed(byteCount: copied, checksum: partial.metadata.contentChecksum ?? ContentChecksum.of(bytes))
                var seeded = partial
                seeded.byteCount = copied
                return (file, seeded)
            } catch {
                reportWriteFailure(error, path: path(file.name), identifier: identifier)
                file.discard()
                return nil
            }
        }
    }

    /// Installs a downloaded temporary file (on the queue; called by ``DiskCacheTemporaryFile``).
    ///
    /// Complete: replaces an existing complete file only when strictly larger in area or the old one is
    /// a placeholder, else discarded; a partial survives only when strictly larger. Partial: discarded
    /// when a placeholder, without a validator (Last-Modified or ETag), or when a complete file of
    /// larger or equal area exists; else it replaces any previous partial. A partial whose full length
    /// is unknown (`expectedLength` 0) is recorded with `size + 1`. Unlike TIP, the per-entry cap
    /// (`budget.maxBytesPerEntry`) holds here as for stores: a file over it is discarded (a complete one posts
    /// `imageTooLargeToStoreInDiskCache`) and what the entry had stays. Without the cap one large download
    /// pruned every pipeline's entries before itself.
    func commitDownload(
        temporaryName: String, fd: Int32, metadata input: DiskCacheMetadata, complete: Bool,
        contents: DiskCacheMetadata.Contents? = nil
    ) -> Bool {
        liveTemporaryNames.remove(temporaryName)
        var metadata = input
        metadata.lastAccess = configuration.clock()
        guard !metadata.identifier.isEmpty else {
            DiskCacheFiles.remove(path(temporaryName))
            return reportNoFileName(for: metadata)
        }
        let name = SafeIdentifier.fileName(for: metadata.identifier)
        var entry = currentEntry(name) ?? DiskCacheEntry(identifier: metadata.identifier)
        guard let size = DiskCacheFiles.regularFileInfo(fd)?.size else {
            DiskCacheFiles.remove(path(temporaryName))
            return false
        }
        let accepted: Bool
        if complete {
            metadata.expectedLength = 0
            if let old = entry.complete?.metadata {
                accepted = metadata.area > old.area || old.isPlaceholder
            } else {
                accepted = true
            }
        } else {
            if metadata.expectedLength <= 0 { metadata.expectedLength = size + 1 }
            accepted =
                !metadata.isPlaceholder && metadata.hasValidator && size > 0 && size <= metadata.expectedLength
                && (entry.complete.map { $0.metadata.area < metadata.area } ?? true)
        }
        guard accepted, domain.budget.maxBytes > 0 else {
            DiskCacheFiles.remove(path(temporaryName))
            return false
        }
        guard size <= domain.budget.maxBytesPerEntry else {
            DiskCacheFiles.remove(path(temporaryName))
            if complete { reportTooLarge(metadata) }
            return false
        }
        let fileName = complete ? name : DiskCache.partialName(name)
        let part: DiskCacheEntry.Part
        let released = releaseFileName(fileName, installingPartial: !complete)
        do throws(POSIXError) {
            part = try install(
                temporaryName: temporaryName, fd: fd, metadata: metadata, contents: contents, as: fileName)
        } catch {
            restoreFileName(released)
            DiskCacheFiles.remove(path(temporaryName))
            // A temporary file removed by clearAll is not a fault.
            if !(error.code == .ENOENT && DiskCacheFiles.regularFileInfo(atPath: path(temporaryName)) == nil
                && ensureDirectory())
            {
                reportWriteFailure(error, path: path(fileName), identifier: metadata.identifier)
            }
            return false
        }
        entry.identifier = metadata.identifier
        if complete {
            entry.complete = part
            if let partial = entry.partial, partial.metadata.area <= metadata.area {
                deleteFile(DiskCache.partialName(name))
                entry.partial = nil
            }
        } else {
            entry.partial = part
        }
        setEntry(entry, forName: name)
        if !isTornDown { domain.budget.prune(priorityCache: self) }
        return true
    }

    /// Renames `oldIdentifier`'s files (complete and partial) to `newIdentifier`, replacing whatever
    /// the new identifier had. Missing ⇒ `POSIXError(.ENOENT)`.
    package func changeIdentifier(from oldIdentifier: String, to newIdentifier: String) throws(POSIXError) {
        let result: Result<Void, POSIXError> = domain.sync {
            guard !oldIdentifier.isEmpty else { return .failure(POSIXError(.ENOENT)) }
            guard !newIdentifier.isEmpty else { return .failure(POSIXError(.EINVAL)) }
            let oldName = SafeIdentifier.fileName(for: oldIdentifier)
            let newName = SafeIdentifier.fileName(for: newIdentifier)
            guard let old = currentEntry(oldName) else { return .failure(POSIXError(.ENOENT)) }
            guard oldName != newName else { return .success(()) }
            if let existing = currentEntry(newName) {
                deleteFiles(of: existing)
                setEntry(nil, forName: newName)
            }
            var moved = DiskCacheEntry(identifier: newIdentifier)
            var failure: POSIXError?
            for (part, isPartial) in [(old.complete, false), (old.partial, true)] {
                guard let part else { continue }
                let from = isPartial ? DiskCache.partialName(oldName) : oldName
                let to = isPartial ? DiskCache.partialName(newName) : newName
                var metadata = part.metadata
                metadata.identifier = newIdentifier
                do throws(POSIXError) {
                    // The new identifier is written first: a crash before the rename leaves a file whose
                    // identifier does not match its name, which is dropped, never served as the old one.
                    _ = releaseFileName(to, installingPartial: isPartial)
                    try rewriteMetadataForRename(metadata, from: from, to: to)
                    try DiskCacheFiles.rename(path(from), path(to))
                    if metadataStorage == .sidecar { DiskCacheFiles.remove(path(DiskCacheSidecar.name(for: from))) }
                    let newPart = DiskCacheEntry.Part(metadata: metadata, filePath: path(to), byteCount: part.byteCount)
                    if isPartial { moved.partial = newPart } else { moved.complete = newPart }
                } catch {
                    deleteFile(from)
                    deleteFile(to)
                    reportWriteFailure(error, path: path(to), identifier: newIdentifier)
                    failure = error
                }
            }
            setEntry(nil, forName: oldName)
            setEntry(moved, forName: newName)
            if let failure, moved.isEmpty { return .failure(failure) }
            return .success(())
        }
        try result.get()
    }

    private func rewriteMetadataForRename(_ metadata: DiskCacheMetadata, from: String, to: String) throws(POSIXError) {
        switch metadataStorage {
        case .extendedAttributes:
            try rewriteMetadata(metadata, of: from)
        case .sidecar:
            let fd = try DiskCacheFiles.open(path(from), O_RDONLY | O_NONBLOCK)
            defer { DiskCacheFiles.close(fd) }
            guard let info = DiskCacheFiles.regularFileInfo(fd) else { throw POSIXError(.ENOENT) }
            try writeSidecar(DiskCacheSidecar(metadata: metadata, inode: info.inode, size: info.size), for: to)
        }
    }

    /// Deletes `identifier`'s complete and partial files.
    package func clearImage(withIdentifier identifier: String) {
        domain.sync {
            guard !identifier.isEmpty else { return }
            let name = SafeIdentifier.fileName(for: identifier)
            // Only the files that are this identifier's ("a.tmp" may be another identifier's complete file).
            guard let entry = currentEntry(name) else { return }
            deleteFiles(of: entry)
            setEntry(nil, forName: name)
        }
    }

    /// Deletes `identifier`'s complete file when it holds the variant of `url` (its partial stays).
    func clearCompleteImage(withIdentifier identifier: String, url: URL) {
        domain.sync {
            guard !identifier.isEmpty else { return }
            let name = SafeIdentifier.fileName(for: identifier)
            guard var entry = currentEntry(name), entry.complete?.metadata.url == url else { return }
            deleteFile(name)
            entry.complete = nil
            setEntry(entry.isEmpty ? nil : entry, forName: name, bump: false)
        }
    }

    /// Deletes `identifier`'s partial file when `accepts` takes its metadata (a partial the server no longer
    /// continues); the complete image stays.
    func clearPartialImage(withIdentifier identifier: String, accepts: (DiskCacheMetadata) -> Bool) {
        domain.sync {
            guard !identifier.isEmpty else { return }
            let name = SafeIdentifier.fileName(for: identifier)
            guard var entry = currentEntry(name), let partial = entry.partial, accepts(partial.metadata) else { return }
            deleteFile(DiskCache.partialName(name))
            entry.partial = nil
            setEntry(entry.isEmpty ? nil : entry, forName: name, bump: false)
        }
    }

    /// Removes the directory with everything in it, as TIP does (the pipeline is no longer a known one until it
    /// writes again, which brings the directory back); `completion` then runs on a background queue.
    func clearAll(completion: (@Sendable () -> Void)? = nil) {
        domain.async { [self] in
            forgetAllEntries()
            switch DiskCacheFiles.removeDirectory(directoryPath) {
            case .removed:
                directoryWasCleared = true
            case .refilled:
                // Downloads made their temporary files in it faster than it was emptied: those are theirs.
                configuration.log(.debug, "disk cache \(directoryPath) cleared; in-flight downloads' files remain")
            case .failed(let error):
                reportWriteFailure(error, path: directoryPath, identifier: nil)
            }
            if let completion { DispatchQueue.global(qos: .utility).async(execute: completion) }
        }
    }

    /// TIP's `TIPProblemDiskCacheUpdateImageEntryCouldNotGenerateFileName`: no file name can be made for the
    /// entry's identifier, so nothing is written. Returns false (not stored).
    func reportNoFileName(for metadata: DiskCacheMetadata) -> Bool {
        configuration.post(
            .diskCacheUpdateImageEntryCouldNotGenerateFileName,
            userInfo: [
                ProblemInfoKey.imageIdentifier: metadata.identifier,
                ProblemInfoKey.imageURL: metadata.url.absoluteString,
                ProblemInfoKey.path: directoryPath,
            ],
            message: "no disk cache file name can be made for the image identifier '\(metadata.identifier)' "
                + "(\(metadata.url.absoluteString)): it is not stored on disk; give the image a non-empty identifier")
        return false
    }
}
