import CXattr
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// File-level storage of the disk cache: reading a file's metadata, installing a written temporary
/// file with its metadata, rewriting metadata and deleting. All on the domain queue, except
/// ``DiskCache/readPart(fileName:)`` which only reads.
extension DiskCache {
    /// A data file's metadata and size, or nil when it is missing, not a regular file, or its metadata
    /// is absent, malformed or (sidecars) describes another file. With extended attributes, a file whose
    /// metadata outgrew them (a very long URL or entity tag) has a sidecar instead.
    func readPart(fileName: String) -> (metadata: DiskCacheMetadata, size: Int64)? {
        let dataPath = path(fileName)
        guard let fd = try? DiskCacheFiles.open(dataPath, O_RDONLY | O_NONBLOCK) else { return nil }
        defer { DiskCacheFiles.close(fd) }
        guard let info = DiskCacheFiles.regularFileInfo(fd) else { return nil }
        if metadataStorage == .extendedAttributes, let metadata = DiskCacheFiles.readAttributes(from: fd) {
            return (metadata, info.size)
        }
        guard
            let sidecarFD = try? DiskCacheFiles.open(path(DiskCacheSidecar.name(for: fileName)), O_RDONLY | O_NONBLOCK)
        else { return nil }
        defer { DiskCacheFiles.close(sidecarFD) }
        guard let bytes = DiskCacheFiles.readAll(sidecarFD, maximumSize: 256 * 1024),
            let sidecar = DiskCacheSidecar(decoding: Array(bytes)),
            sidecar.inode == info.inode, sidecar.size == info.size
        else { return nil }
        return (sidecar.metadata, info.size)
    }

    /// Writes `metadata` for the open file `fd` (to be named `fileName`): in its extended attribute, or in a
    /// sidecar where the cache uses sidecars or the metadata is too large for the file system's attributes
    /// (ext4 keeps about 4 KB per file).
    private func writeMetadata(
        _ metadata: DiskCacheMetadata, fd: Int32, inode: UInt64, size: Int64, for fileName: String
    ) throws(POSIXError) {
        if metadataStorage == .extendedAttributes {
            do throws(POSIXError) {
                return try DiskCacheFiles.writeAttributes(metadata, to: fd)
            } catch  where [.ENOSPC, .E2BIG, .ERANGE].contains(error.code) {
                // Too large for an attribute: this file's metadata goes to a sidecar.
            }
        }
        try writeSidecar(DiskCacheSidecar(metadata: metadata, inode: inode, size: size), for: fileName)
    }

    /// `metadata` when it and `size` make a valid complete (`partial == false`) or partial file named
    /// for `safeName`, else nil. The identifier must map to `safeName`; a missing identifier (too long
    /// for an attribute) is accepted only for a hashed name and becomes the hash until the next access
    /// re-attaches the real one (as TIP). A recorded content length must be the file's size.
    static func validated(_ metadata: DiskCacheMetadata, size: Int64, safeName: String, partial: Bool)
        -> DiskCacheMetadata?
    {
        var metadata = metadata
        if metadata.identifier.isEmpty {
            let isHash =
                safeName.utf8.count == 40
                && safeName.utf8.allSatisfy {
                    (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                        || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
                }
            guard isHash else { return nil }
            metadata.identifier = safeName
        } else if SafeIdentifier.fileName(for: metadata.identifier) != safeName {
            return nil
        }
        guard metadata.contentLengthMatches(size) else { return nil }
        if partial {
            return metadata.expectedLength > 0 && size > 0 && size <= metadata.expectedLength ? metadata : nil
        }
        return metadata.expectedLength == 0 ? metadata : nil
    }

    /// The entry for `safeName` read from its files; invalid files are deleted (on the queue).
    func readEntryFromFiles(_ safeName: String) -> DiskCacheEntry? {
        var entry = DiskCacheEntry(identifier: "", complete: nil, partial: nil)
        for partial in [false, true] {
            let name = partial ? DiskCache.partialName(safeName) : safeName
            let found = readPart(fileName: name)
            guard let found,
                let metadata = DiskCache.validated(
                    found.metadata, size: found.size, safeName: safeName, partial: partial)
            else {
                // "a.tmp" is both the partial of "a" and the complete file of identifier "a.tmp": a file
                // valid under the other reading belongs to the other entry and stays.
                let belongsToOther =
                    found.map { found in
                        partial
                            ? DiskCache.validated(found.metadata, size: found.size, safeName: name, partial: false)
                                != nil
                            : name.hasSuffix(".tmp")
                                && DiskCache.validated(
                                    found.metadata, size: found.size, safeName: String(name.dropLast(4)), partial: true)
                                    != nil
                    } ?? false
                if !belongsToOther && (DiskCacheFiles.regularFileInfo(atPath: path(name)) != nil || isSymlink(name)) {
                    deleteFile(name)
                }
                continue
            }
            let part = DiskCacheEntry.Part(metadata: metadata, filePath: path(name), byteCount: found.size)
            entry.identifier = metadata.identifier
            if partial { entry.partial = part } else { entry.complete = part }
        }
        return entry.isEmpty ? nil : entry
    }

    private func isSymlink(_ name: String) -> Bool {
        var info = stat()
        return lstat(path(name), &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK
    }

    /// Writes `metadata` for the open temporary file `temporaryName` and renames it to `fileName`.
    /// With sidecars the sidecar (naming the file's inode and size) is renamed into place first.
    /// Returns the installed part. On failure the temporary file is left for the caller to remove.
    /// The metadata records the file's length and CRC-32: `contents`, as the writer checksummed them, when they match
    /// the file's size; else read back from the written file (from the page cache).
    func install(
        temporaryName: String, fd: Int32, metadata input: DiskCacheMetadata, contents: DiskCacheMetadata.Contents?,
        as fileName: String
    ) throws(POSIXError) -> DiskCacheEntry.Part {
        guard let info = DiskCacheFiles.regularFileInfo(fd) else { throw POSIXError(.EIO) }
        let metadata: DiskCacheMetadata
        if let contents, contents.length == info.size {
            metadata = input.recording(contents)
        } else {
            let reader = try DiskCacheFiles.open(path(temporaryName), O_RDONLY | O_NONBLOCK)
            defer { DiskCacheFiles.close(reader) }
            guard let written = DiskCacheFiles.readAll(reader, mapLargeFiles: true), Int64(written.count) == info.size
            else {
                throw POSIXError(.EIO)
            }
            metadata = input.recordingContents(of: written)
        }
        try writeMetadata(metadata, fd: fd, inode: info.inode, size: info.size, for: fileName)
        try DiskCacheFiles.rename(path(temporaryName), path(fileName))
        return DiskCacheEntry.Part(metadata: metadata, filePath: path(fileName), byteCount: info.size)
    }

    /// Flushes a written temporary file to storage before it is renamed into place, when
    /// ``GlobalConfiguration/diskCacheWritesAreDurable`` asks for it (any queue).
    func flushIfDurable(_ fd: Int32) throws(POSIXError) {
        guard configuration.diskCacheWritesAreDurable else { return }
        try DiskCacheFiles.sync(fd)
        flushCount.withLock { $0 += 1 }
    }

    /// Writes a sidecar through its own temporary file and renames it to ``DiskCacheSidecar/name(for:)``.
    func writeSidecar(_ sidecar: DiskCacheSidecar, for fileName: String) throws(POSIXError) {
        let temporary = DiskCacheFiles.temporaryName()
        let fd = try DiskCacheFiles.create(path(temporary))
        let written = Result { () throws(POSIXError) in
            try DiskCacheFiles.writeAll(fd, Data(sidecar.encoded))
            try flushIfDurable(fd)
        }
        // Closed exactly once, whatever happened: a second close after a failed rename could close a number
        // another thread had just been given (a socket, another cache file).
        DiskCacheFiles.close(fd)
        do throws(POSIXError) {
            try written.get()
            try DiskCacheFiles.rename(path(temporary), path(DiskCacheSidecar.name(for: fileName)))
        } catch {
            DiskCacheFiles.remove(path(temporary))
            throw error
        }
    }

    /// Rewrites the metadata of the installed file `fileName` (last access, identifier).
    func rewriteMetadata(_ metadata: DiskCacheMetadata, of fileName: String) throws(POSIXError) {
        let fd = try DiskCacheFiles.open(path(fileName), O_RDONLY | O_NONBLOCK)
        defer { DiskCacheFiles.close(fd) }
        guard let info = DiskCacheFiles.regularFileInfo(fd) else { throw POSIXError(.ENOENT) }
        // One packed attribute (or sidecar) holds everything: a last-access update rewrites it whole.
        try writeMetadata(metadata, fd: fd, inode: info.inode, size: info.size, for: fileName)
    }

    /// Before a file is installed at `fileName`, forgets another entry's part with the same name (the
    /// complete file of identifier `a.tmp` and the partial of `a` share a name, as in TIP), so the
    /// totals stay exact and a later eviction of that entry cannot delete the new file.
    /// Returns what to restore with ``restoreFileName(_:)`` if the install then fails.
    func releaseFileName(_ fileName: String, installingPartial: Bool) -> (name: String, entry: DiskCacheEntry)? {
        if installingPartial {
            guard let before = currentEntry(fileName), before.complete != nil else { return nil }
            var other = before
            other.complete = nil
            setEntry(other, forName: fileName, bump: false)
            return (fileName, before)
        } else if fileName.hasSuffix(".tmp") {
            let base = String(fileName.dropLast(4))
            guard let before = currentEntry(base), before.partial != nil else { return nil }
            var other = before
            other.partial = nil
            setEntry(other, forName: base, bump: false)
            return (base, before)
        }
        return nil
    }

    /// Undoes ``releaseFileName(_:installingPartial:)`` after a failed install (the file stayed).
    func restoreFileName(_ released: (name: String, entry: DiskCacheEntry)?) {
        guard let released else { return }
        setEntry(released.entry, forName: released.name, bump: false)
    }

    /// Deletes one file and its sidecar (with extended attributes, a file whose metadata outgrew them has one).
    func deleteFile(_ fileName: String) {
        DiskCacheFiles.remove(path(fileName))
        DiskCacheFiles.remove(path(DiskCacheSidecar.name(for: fileName)))
    }

    /// Deletes both files of an entry.
    func deleteFiles(of entry: DiskCacheEntry) {
        if let complete = entry.complete { deleteFile(complete.fileName) }
        if let partial = entry.partial { deleteFile(partial.fileName) }
    }
}
